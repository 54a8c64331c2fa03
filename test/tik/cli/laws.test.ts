import { cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { emit } from '../../../src/tik/edn/index.js';
import { Keyword, type EdnValue } from '../../../src/tik/edn/value.js';
import { cleanup, json, supportStore, tempDir, tik } from './harness.js';

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
