import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTicketSet } from '../../../src/tik/app/ticket-set.js';
import { Instant } from '../../../src/tik/edn/value.js';
import { combineInbox, ticketInbox } from '../../../src/tik/shard/inbox-parts.js';
import { openFileStore } from '../../../src/tik/store/file/open-file-store.js';
import { T0, cleanup, supportStore, tik } from '../cli/harness.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));

const FACTS = ['category=technical', 'category=billing', 'severity=high', 'resolution.ref=abcdef123', 'customer.ack=true'];

describe('inbox parts (next, split per ticket and combined)', () => {
  it('combining every ticket’s part, in any order, is exactly `tik next --json` of the whole store (law)', async () => {
    const dir = await supportStore();
    dirs.push(dir);
    const ids: string[] = [];
    const now = new Instant(Date.parse(T0));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(), fc.nat(FACTS.length), fc.constantFrom('seb', 'billing', 'x'), fc.nat()), { minLength: 1, maxLength: 5 }),
        fc.constantFrom<[string | undefined, string | undefined, boolean]>([undefined, undefined, false], [undefined, undefined, true], ['seb', undefined, false], ['billing', undefined, true], [undefined, 'triager', false]),
        fc.infiniteStream(fc.nat()),
        async (ops, [actor, role, all], shuffle) => {
          for (const [pick, fact, who, link] of ops) {
            if (ids.length === 0 || pick % 3 === 0) {
              const r = await tik(dir, ['new', 'support-request']);
              ids.push(r.stdout.trim());
              continue;
            }
            const t = ids[pick % ids.length]!;
            const kv = fact === FACTS.length ? `link.depends-on=${ids[link % ids.length]!}` : FACTS[fact]!;
            expect((await tik(dir, ['--actor', who, 'set', t, kv])).code).toBe(0);
          }
          const expected = await tik(dir, [...(actor ? ['--actor', actor] : []), 'next', ...(role ? ['--role', role] : []), ...(all ? ['--all'] : []), '--json']);
          expect(expected.code).toBe(0);
          const { tickets } = await loadTicketSet(await openFileStore(dir), now);
          const parts = tickets.map((t) => ticketInbox(t, now, { ...(actor ? { actor } : {}), ...(role ? { role } : {}) }));
          const it = shuffle[Symbol.iterator]();
          const shuffled = parts.map((p) => [it.next().value as number, p] as const).sort((a, b) => a[0] - b[0]).map(([, p]) => p);
          expect(`${JSON.stringify(combineInbox(shuffled, all), null, 2)}\n`).toBe(expected.stdout);
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
});
