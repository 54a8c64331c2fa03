import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryResultStore } from '../../../src/shoal/cache/result-memory-store.js';

describe('in-process result store', () => {
  it('expires an entry when its TTL has passed on the injected clock', async () => {
    let now = 1000;
    const s = new MemoryResultStore(1024, () => now);
    await s.set('k', 'v', 500, []);
    now = 1499;
    expect(await s.get('k')).toBe('v');
    now = 1500;
    expect(await s.get('k')).toBeUndefined();
    expect(s.bytes()).toBe(0);
  });

  it('evicts the least recently used entry to stay within its byte bound, and keeps nothing larger than the bound', async () => {
    const s = new MemoryResultStore(10, () => 0);
    await s.set('a', 'aaaa', 1000, []);
    await s.set('b', 'bbbb', 1000, []);
    expect(await s.get('a')).toBe('aaaa'); // a is now the most recent
    await s.set('c', 'cccc', 1000, []);
    expect(await s.get('b')).toBeUndefined();
    expect(await s.get('a')).toBe('aaaa');
    expect(await s.get('c')).toBe('cccc');
    await s.set('huge', 'x'.repeat(11), 1000, []);
    expect(await s.get('huge')).toBeUndefined();
    expect(s.bytes()).toBe(8);
    await s.set('é', 'ééééé', 1000, []); // bytes are UTF-8: 10
    expect(s.bytes()).toBe(10);
    expect(s.size).toBe(1);
  });

  it('invalidates by table, or everything', async () => {
    const s = new MemoryResultStore(1000, () => 0);
    await s.set('1', 'x', 1000, ['sales.orders']);
    await s.set('2', 'y', 1000, ['sales.orders', 'sales.kinds']);
    await s.set('3', 'z', 1000, ['sales.kinds']);
    await s.invalidate('Sales.Orders');
    expect([await s.get('1'), await s.get('2'), await s.get('3')]).toEqual([undefined, undefined, 'z']);
    expect(s.bytes()).toBe(1);
    await s.invalidate();
    expect(await s.get('3')).toBeUndefined();
    expect(s.bytes()).toBe(0);
  });

  it('law: whatever the operations, bytes held never exceed the bound, and a read returns only the last text written, unexpired and not invalidated', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 6 }), len: fc.integer({ min: 0, max: 40 }), ttl: fc.integer({ min: 0, max: 50 }) }),
      fc.record({ kind: fc.constant('get' as const), key: fc.integer({ min: 0, max: 6 }) }),
      fc.record({ kind: fc.constant('tick' as const), by: fc.integer({ min: 0, max: 30 }) }),
      fc.record({ kind: fc.constant('invalidate' as const), table: fc.option(fc.constantFrom('t0', 't1'), { nil: undefined }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        let now = 0;
        const s = new MemoryResultStore(64, () => now);
        const model = new Map<string, { text: string; expiresAt: number }>();
        for (const o of ops) {
          if (o.kind === 'set') {
            const text = String(o.key).repeat(o.len);
            await s.set(String(o.key), text, o.ttl, [`t${o.key % 2}`]);
            model.set(String(o.key), { text, expiresAt: now + o.ttl });
          } else if (o.kind === 'get') {
            const got = await s.get(String(o.key));
            const m = model.get(String(o.key));
            // a kept entry is the last one written and not expired (eviction may have dropped it)
            if (got !== undefined) expect(m && m.expiresAt > now && got === m.text).toBe(true);
          } else if (o.kind === 'tick') now += o.by;
          else {
            await s.invalidate(o.table);
            for (const k of [...model.keys()]) if (o.table === undefined || `t${Number(k) % 2}` === o.table) model.delete(k);
          }
          expect(s.bytes()).toBeLessThanOrEqual(64);
          expect(s.bytes()).toBeGreaterThanOrEqual(0);
        }
        await s.invalidate();
        expect(s.bytes()).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
