/**
 * Lease safety law for the generic primitive, on a simulated database clock: over random schedules
 * of claims, renews, pauses, crashes, commits and releases by three writers on two keys, every
 * result agrees with an independent model; epochs only grow; no key ever sees two commits in one
 * epoch; no commit lands after its lease ended; keys never affect each other.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeaseGrant } from '../../../src/core/lease/index.js';
import { openSqliteClient } from '../../../src/core/sql/sqlite-client.js';
import type { SqlClient } from '../../../src/core/sql/sql-client.js';
import { type LeaseFixture, leaseFixture } from './lease-fixture.js';

const LEASE = 10_000;
const KEYS = ['p1', 'p2'] as const;
const WRITERS = ['A', 'B', 'C'] as const;

const step = fc.oneof(
  fc.record({
    op: fc.constantFrom('claim' as const, 'renew' as const, 'commit' as const, 'release' as const, 'crash' as const),
    w: fc.constantFrom(...WRITERS),
    k: fc.constantFrom(...KEYS),
  }),
  fc.record({ op: fc.constant('pause' as const), ms: fc.oneof(fc.integer({ min: 0, max: 2 * LEASE }), fc.constantFrom(LEASE, LEASE - 1, 1)) }),
);

describe('fenced lease safety (simulated database clock)', () => {
  let db: SqlClient;
  let f: LeaseFixture;
  beforeAll(async () => {
    db = await openSqliteClient(':memory:');
    f = await leaseFixture(db);
  });
  afterAll(() => db.close());

  it('never two commits in one epoch, never a commit after the lease ended, per key (1,000 schedules)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        run++;
        const lease = f.lease({ leaseMs: LEASE });
        const key = (k: string) => `${k}-${run}`;
        for (const k of KEYS) await f.addRow(key(k));
        let now = 5_000_000;
        await f.at(now);
        const model = new Map(KEYS.map((k) => [k, { holder: null as string | null, epoch: 0, until: 0, commits: new Set<number>() }]));
        const grants = new Map<string, LeaseGrant>();
        for (const s of steps) {
          if (s.op === 'pause') {
            now += s.ms;
            await f.at(now);
            continue;
          }
          const m = model.get(s.k)!;
          const id = `${s.w}/${s.k}`;
          const g = grants.get(id);
          if (s.op === 'crash') grants.delete(id);
          else if (s.op === 'claim') {
            if (g) continue;
            const got = await lease.claim(key(s.k), s.w);
            const free = m.holder === null || m.until <= now;
            expect(got !== null).toBe(free);
            if (got) {
              expect(got.epoch).toBe(m.epoch + 1);
              expect(got.untilMs).toBe(now + LEASE);
              expect(got.reclaimedFrom).toBe(m.holder);
              Object.assign(m, { holder: s.w, epoch: got.epoch, until: got.untilMs });
              grants.set(id, got);
            }
          } else if (g) {
            const live = m.holder === s.w && m.epoch === g.epoch && m.until > now;
            if (s.op === 'renew') {
              const r = await lease.renew(g);
              expect(r !== null).toBe(live);
              if (r) {
                expect(r.untilMs).toBe(Math.max(m.until, now + LEASE));
                m.until = r.untilMs;
                grants.set(id, r);
              } else grants.delete(id);
            } else if (s.op === 'commit') {
              const ok = await lease.commit(g, { set: { payload: `${s.w}@${g.epoch}` } });
              expect(ok).toBe(live);
              if (ok) {
                expect(m.commits.has(g.epoch)).toBe(false);
                expect(m.until).toBeGreaterThan(now);
                m.commits.add(g.epoch);
                m.holder = null;
              }
              grants.delete(id);
            } else {
              const ok = await lease.release(g);
              expect(ok).toBe(m.holder === s.w && m.epoch === g.epoch);
              if (ok) m.holder = null;
              grants.delete(id);
            }
          }
          for (const k of KEYS) {
            const st = (await lease.state(key(k)))!;
            const mk = model.get(k)!;
            expect(st.writer).toBe(mk.holder);
            expect(st.epoch).toBe(mk.epoch);
          }
        }
      }),
      { numRuns: 1000 },
    );
  }, 300_000);
});
