import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { emit, readEdn } from '../../../src/tik/edn/index.js';
import { isMap, Keyword, type EdnValue } from '../../../src/tik/edn/value.js';
import { parseProcess, resolveRoles } from '../../../src/tik/kernel/index.js';
import { SimTicket } from '../../../src/tik/testing/sim-ticket.js';
import { cleanup, CONFORMANCE, json, supportStore, tempDir, tik } from './harness.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));

interface Status {
  reached: string[];
  current: string[];
  facts: Record<string, { status: string; value: string | null }>;
}

/** Copy every file of `from`'s tickets into `to` (a git merge of two replicas: a union of files). */
function union(from: string, to: string): void {
  cpSync(join(from, 'tickets'), join(to, 'tickets'), { recursive: true, force: false, errorOnExist: false });
}

describe('laws at the command line', () => {
  it('a value written as its canonical EDN text is stored and reported as that value (property)', async () => {
    const d = await supportStore();
    dirs.push(d);
    const id = (await tik(d, ['new', 'support-request'])).stdout.trim();
    const segment = fc.stringMatching(/^[a-z][a-z0-9-]{0,6}$/).filter((s) => !['link', 'title', 'resolution'].includes(s));
    const leaf: fc.Arbitrary<EdnValue> = fc.oneof(
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      segment.map((s) => Keyword.of(s)),
      fc.string({ minLength: 1, maxLength: 12 }),
      fc.boolean(),
      fc.constant(null),
    );
    const value = fc.oneof(leaf, fc.array(leaf, { maxLength: 3 }).map((xs) => Object.freeze(xs) as EdnValue));
    await fc.assert(
      fc.asyncProperty(segment, value, async (key, v) => {
        const text = emit(v);
        const w = await tik(d, ['set', id, `${key}=${text}`]);
        expect(w.code, w.stderr).toBe(0);
        const s = json<Status>(await tik(d, ['status', id, '--json']));
        expect(s.facts[key]!.value).toBe(text);
      }),
      { numRuns: 25 },
    );
  });

  it('replicas that write independently converge once their event files are unioned, in either order', async () => {
    const a = await supportStore();
    const b = tempDir('tik-replica-');
    dirs.push(a, b);
    const id = (await tik(a, ['new', 'support-request'])).stdout.trim();
    cpSync(a, b, { recursive: true });
    // Concurrent writes on each replica, at different claimed times.
    await tik(a, ['set', id, 'category=technical'], { TIK_NOW: '2026-07-08T10:05:00Z' });
    await tik(b, ['set', id, 'severity=high'], { TIK_NOW: '2026-07-08T10:06:00Z' });
    await tik(b, ['--actor', 'billing', 'set', id, 'category=billing'], { TIK_NOW: '2026-07-08T10:07:00Z' });
    const ab = tempDir('tik-merge-');
    const ba = tempDir('tik-merge-');
    dirs.push(ab, ba);
    cpSync(a, ab, { recursive: true });
    union(b, ab);
    cpSync(b, ba, { recursive: true });
    union(a, ba);
    const events = (dir: string) => readdirSync(join(dir, 'tickets', id, 'events')).sort();
    expect(events(ab)).toEqual(events(ba));
    expect(events(ab)).toHaveLength(4);
    const sa = json<Status>(await tik(ab, ['status', id, '--json']));
    const sb = json<Status>(await tik(ba, ['status', id, '--json']));
    expect(sa).toEqual(sb);
    // The two category writes never saw each other: the path is conflicted, not silently resolved.
    expect(sa.facts.category!.status).toBe('conflicted');
    // A write that observed both resolves it, on either replica.
    await tik(ab, ['set', id, 'category=technical'], { TIK_NOW: '2026-07-08T10:08:00Z' });
    expect(json<Status>(await tik(ab, ['status', id, '--json'])).facts.category!.status).toBe('present');
  });

  it('the same intent written twice is one event (append is idempotent by id)', async () => {
    const d = await supportStore();
    dirs.push(d);
    const id = (await tik(d, ['new', 'support-request'])).stdout.trim();
    const copy = tempDir('tik-replica-');
    dirs.push(copy);
    cpSync(d, copy, { recursive: true });
    // Same actor, same clock, same parents, same body: the same bytes, the same id.
    const x = (await tik(d, ['set', id, 'category=technical'])).stdout;
    const y = (await tik(copy, ['set', id, 'category=technical'])).stdout;
    expect(x).toBe(y);
    union(copy, d);
    expect(readdirSync(join(d, 'tickets', id, 'events'))).toHaveLength(2);
  });
});

describe('the command line and the in-memory runner agree', () => {
  it('the same intents through tik set/retract/dispute and through the Gherkin ticket derive the same stages (property)', async () => {
    const def = parseProcess(readEdn(readFileSync(join(CONFORMANCE, 'processes/support-request.edn'), 'utf8')));
    const register = readEdn(readFileSync(join(CONFORMANCE, 'roles.edn'), 'utf8'));
    const roles = resolveRoles(def, isMap(register) ? register : undefined);
    const op = fc.record({
      kind: fc.constantFrom('set', 'retract', 'dispute'),
      actor: fc.constantFrom('seb', 'billing', 'rando'),
      key: fc.constantFrom('category', 'severity', 'resolution.ref', 'customer.ack'),
      value: fc.constantFrom('technical', 'billing', 'high', 'true', 'abcdef123456'),
    });
    const d = await supportStore();
    dirs.push(d);
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 6 }), async (ops) => {
        const env = { TIK_NOW: '2026-01-01T00:00:00Z' };
        const id = (await tik(d, ['new', 'support-request'], env)).stdout.trim();
        const sim = new SimTicket(def, roles, { creator: 'seb' });
        for (const o of ops) {
          const path = o.key.split('.').map((s) => Keyword.of(s));
          if (o.kind === 'set') {
            await tik(d, ['--actor', o.actor, 'set', id, `${o.key}=${o.value}`], env);
            const raw = o.key === 'resolution.ref';
            sim.assert(o.actor, path, raw ? o.value : o.value === 'true' ? true : Keyword.of(o.value));
          } else if (o.kind === 'retract') {
            await tik(d, ['--actor', o.actor, 'retract', id, o.key], env);
            sim.retract(o.actor, path);
          } else {
            await tik(d, ['--actor', o.actor, 'dispute', id, o.key], env);
            sim.dispute(o.actor, path, 'disputed');
          }
        }
        const at = new Date(sim.now.ms).toISOString();
        const s = json<Status>(await tik(d, ['status', id, '--at', at, '--json'], env));
        expect(s.reached).toEqual([...sim.reached()].sort());
        expect(s.current).toEqual([...sim.current()].sort());
      }),
      { numRuns: 12 },
    );
  });
});
