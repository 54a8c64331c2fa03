import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ItemSet, Reconciler, idText, type ReconcileOptions, type SyncItem } from '../../../src/tik/sync/index.js';
import { TikError } from '../../../src/tik/errors.js';

const item = (ts: number, seed: string): SyncItem => ({ ts, id: Uint8Array.from(createHash('sha256').update(seed).digest()) });

/** Runs the protocol to completion between two in-memory sets; returns have/need and the cost. */
function run(a: ItemSet, b: ItemSet, options: ReconcileOptions = {}) {
  const init = new Reconciler(a, options);
  const resp = new Reconciler(b, options);
  const have = new Set<string>();
  const need = new Set<string>();
  let rounds = 0;
  let bytes = 0;
  let msg: Uint8Array | undefined = init.initiate();
  while (msg) {
    const answer = resp.respond(msg);
    bytes += msg.length + answer.length;
    rounds++;
    if (rounds > 100) throw new Error('no termination');
    const step = init.reconcile(answer);
    step.have.forEach((h) => have.add(h));
    step.need.forEach((n) => need.add(n));
    msg = step.next;
  }
  return { have, need, rounds, bytes };
}

const ids = (s: readonly SyncItem[]): Set<string> => new Set(s.map((i) => idText(i.id)));

describe('range-based set reconciliation', () => {
  it('finds exactly the symmetric difference (law), with and without a frame limit', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.string(), fc.integer({ min: 0, max: 2 })), { maxLength: 400 }),
        fc.constantFrom(0, 4096),
        fc.constantFrom(2, 4, 16),
        (spec, limit, b) => {
          // 0: both sides, 1: only A, 2: only B; timestamps collide often to exercise id-prefix bounds
          const seen = new Set<string>();
          const A: SyncItem[] = [];
          const B: SyncItem[] = [];
          for (const [ts, seed, side] of spec) {
            if (seen.has(seed)) continue;
            seen.add(seed);
            const it = item(ts, seed);
            if (side !== 2) A.push(it);
            if (side !== 1) B.push(it);
          }
          const r = run(ItemSet.of(A), ItemSet.of(B), { frameSizeLimit: limit, branching: b });
          const a = ids(A);
          const bb = ids(B);
          expect([...r.have].sort()).toEqual([...a].filter((x) => !bb.has(x)).sort());
          expect([...r.need].sort()).toEqual([...bb].filter((x) => !a.has(x)).sort());
        },
      ),
      { numRuns: 200 },
    );
  });

  it('equal sets cost one round trip of about 32 bytes', () => {
    const items = Array.from({ length: 10_000 }, (_, i) => item(1_700_000_000_000 + i * 7, `e${i}`));
    const r = run(ItemSet.of(items), ItemSet.of([...items].reverse()));
    expect(r.rounds).toBe(1);
    expect(r.have.size + r.need.size).toBe(0);
    expect(r.bytes).toBeLessThanOrEqual(32);
  });

  it('a few differences in a large set cost O(log n) rounds and bytes proportional to the differences', () => {
    const n = 50_000;
    const common = Array.from({ length: n }, (_, i) => item(1_700_000_000_000 + i * 13, `c${i}`));
    const extraA = [item(1_700_000_000_000 + 5 * 13 + 1, 'xa1'), item(1_700_000_300_000, 'xa2')];
    const extraB = [item(1_700_000_600_001, 'xb1')];
    const r = run(ItemSet.of([...common, ...extraA]), ItemSet.of([...common, ...extraB]));
    expect(r.have).toEqual(ids(extraA));
    expect(r.need).toEqual(ids(extraB));
    // log_16(50k) ≈ 4 levels; each difference costs at most b fingerprints per level
    expect(r.rounds).toBeLessThanOrEqual(6);
    expect(r.bytes).toBeLessThan(3 * 16 * 5 * 40);
  });

  it('an empty side learns everything; a frame limit splits the id list over several rounds', () => {
    const items = Array.from({ length: 3000 }, (_, i) => item(i, `e${i}`));
    const r = run(ItemSet.of([]), ItemSet.of(items), { frameSizeLimit: 8192 });
    expect(r.need.size).toBe(3000);
    expect(r.rounds).toBeGreaterThan(1);
  });

  it('the fingerprint is SHA-256 of the little-endian id sum and a varint count, first 16 bytes', () => {
    const a = item(1, 'a');
    const b = item(2, 'b');
    let sum = 0n;
    for (const x of [a, b]) sum += BigInt(`0x${Buffer.from(x.id).reverse().toString('hex')}`);
    sum %= 1n << 256n;
    const le = Buffer.from(sum.toString(16).padStart(64, '0'), 'hex').reverse();
    const expected = createHash('sha256').update(le).update(Uint8Array.of(2)).digest().subarray(0, 16);
    expect(Buffer.from(ItemSet.of([b, a]).fingerprint(0, 2))).toEqual(Buffer.from(expected));
  });

  it('refuses a truncated message, an unknown version and an unknown mode with a coded error', () => {
    const r = new Reconciler(ItemSet.of([item(1, 'a')]));
    const good = new Reconciler(ItemSet.of([])).initiate();
    const codeOf = (f: () => unknown): string => {
      try {
        f();
      } catch (e) {
        return e instanceof TikError ? e.code : 'not a TikError';
      }
      return 'no error';
    };
    expect(codeOf(() => r.respond(good.subarray(0, good.length - 3)))).toBe('sync/truncated');
    expect(codeOf(() => r.respond(Uint8Array.of(0x60)))).toBe('sync/version');
    expect(codeOf(() => r.respond(Uint8Array.of(0x61, 0, 0, 7)))).toBe('sync/bad-message');
    expect(codeOf(() => r.respond(new Uint8Array(0)))).toBe('sync/truncated');
  });
});
