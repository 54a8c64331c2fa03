import { readdirSync, readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { initStore, openFileStore } from '../../../src/tik/store/file/open-file-store.js';
import { storeRoot } from '../../../src/tik/store/store-root.js';
import { CORPUS } from '../verify/store-fixture.js';
import { idOf } from './event-store-contract.js';

const temps: string[] = [];
afterEach(() => {
  while (temps.length > 0) rmSync(temps.pop()!, { recursive: true, force: true });
});

/** Every corpus event, read straight from the files: [ticket, id, bytes]. */
function corpusEvents(): [string, string, Buffer][] {
  const out: [string, string, Buffer][] = [];
  for (const c of readdirSync(CORPUS)) {
    for (const t of readdirSync(join(CORPUS, c, 'tickets'))) {
      const dir = join(CORPUS, c, 'tickets', t, 'events');
      for (const f of readdirSync(dir)) out.push([t, f.replace(/\.edn$/, ''), readFileSync(join(dir, f))]);
    }
  }
  return out;
}

/** Heads computed independently of the kernel: ids no event's bytes name. */
function headsByText(events: readonly [string, string, Buffer][], ticket: string): string[] {
  const mine = events.filter(([t]) => t === ticket);
  const parents = (b: Buffer) => /:event\/parents #\{([^}]*)\}/.exec(b.toString())![1]!;
  const named = new Set(mine.flatMap(([, , b]) => [...parents(b).matchAll(/"(sha256-[0-9a-f]{64})"/g)].map((m) => m[1]!)));
  return mine.map(([, id]) => id).filter((id) => !named.has(id)).sort();
}

describe('storeRoot', () => {
  it('is the canonical {#uuid ticket #{heads}} document over the corpus, and its hash', async () => {
    const all = corpusEvents();
    const root = mkdtempSync(join(tmpdir(), 'tik-root-'));
    temps.push(root);
    const store = await initStore(root);
    for (const [t, id, b] of all) await store.append(t, id, b);
    const r = await storeRoot(store);
    const tickets = [...new Set(all.map(([t]) => t))].sort();
    const expected = `{${tickets.map((t) => `#uuid "${t}" #{${headsByText(all, t).map((h) => `"${h}"`).join(' ')}}`).join(' ')}}`;
    expect(r.document).toBe(expected);
    expect(r.root).toBe(idOf(expected));
    // the support-closed-sticky ticket is linear: one head
    expect(r.heads.get('018f2f6e-7c1a-7000-8000-00000000c0de')).toHaveLength(1);
  });

  it('an empty store has the empty root document', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tik-root-'));
    temps.push(root);
    const r = await storeRoot(await initStore(root));
    expect(r.document).toBe('{}');
    expect(r.root).toBe(idOf('{}'));
  });

  it('law: two replicas with complete logs have equal roots exactly when they hold the same events, in any order', async () => {
    const all = corpusEvents();
    const index = new Map(all.map(([, id], i) => [id, i]));
    const parentsOf = (i: number) => {
      const set = /:event\/parents #\{([^}]*)\}/.exec(all[i]![2].toString())![1]!;
      return [...set.matchAll(/"(sha256-[0-9a-f]{64})"/g)].map((m) => index.get(m[1]!)!);
    };
    /** Closes a pick under parents: a complete log (heads then determine the whole set). */
    const close = (pick: readonly number[]) => {
      const out = new Set<number>();
      const visit = (i: number) => {
        if (out.has(i)) return;
        out.add(i);
        for (const p of parentsOf(i)) visit(p);
      };
      pick.forEach(visit);
      return [...out];
    };
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(all.map((_, i) => i), { minLength: 1 }),
        fc.subarray(all.map((_, i) => i), { minLength: 1 }),
        fc.infiniteStream(fc.nat()),
        async (pickA, pickB, shuffle) => {
          const a = close(pickA);
          const b = close(pickB);
          const ra = mkdtempSync(join(tmpdir(), 'tik-root-a-'));
          const rb = mkdtempSync(join(tmpdir(), 'tik-root-b-'));
          temps.push(ra, rb);
          const sa = await initStore(ra);
          const sb = await initStore(rb);
          for (const i of a) await sa.append(all[i]![0], all[i]![1], all[i]![2]);
          const order = [...b].sort(() => (shuffle.next().value % 3) - 1);
          for (const i of order) await sb.append(all[i]![0], all[i]![1], all[i]![2]);
          const same = [...a].sort().join() === [...b].sort().join();
          expect((await storeRoot(sa)).root === (await storeRoot(sb)).root).toBe(same);
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);

  it('reads the corpus in place without writing', async () => {
    const store = openFileStore(join(CORPUS, 'sweep-order-negation'));
    const r = await storeRoot(store);
    expect([...r.heads.keys()]).toEqual(['018f2f6e-7c1a-7000-8000-00000000d005']);
  });
});
