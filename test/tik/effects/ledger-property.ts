/**
 * Delivery safety law on a simulated database clock: three replicas claim the pipeline lease, start
 * attempts, send, record outcomes, pause (clock jumps) and crash, in random orders over two keys.
 * The ledger must agree with an independent model of the lease at every step, so:
 * - never two recorded deliveries (nor a delivery and a dead letter) for one key;
 * - never a record (or an attempt start) by a writer whose lease expired or was taken over;
 * - every send of a key carries that key, and a key delivered after a crash was re-sent with it.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { LeaseGrant } from '../../../src/core/lease/index.js';
import type { DeliveryLedger } from '../../../src/tik/effects/index.js';
import { LEASE, delivery, type LedgerFixture } from './ledger-fixture.js';

const WRITERS = ['A', 'B', 'C'] as const;
const KEYS = [0, 1] as const;
const MAX_ATTEMPTS = 3;

// replica steps four times as often as clock jumps, so a lease usually lives for a few steps
const step = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constantFrom('claim' as const, 'begin' as const, 'send' as const, 'delivered' as const, 'failed' as const, 'release' as const, 'crash' as const),
      w: fc.constantFrom(...WRITERS),
      k: fc.constantFrom(...KEYS),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('pause' as const), ms: fc.oneof(fc.integer({ min: 0, max: 2 * LEASE }), fc.constantFrom(LEASE, LEASE - 1, 1)) }) },
);

export async function checkDeliverySafety(f: LedgerFixture, numRuns: number): Promise<void> {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
      run++;
      const ledger: DeliveryLedger = await f.ledger(LEASE);
      const pipeline = `pipe-${run}`;
      const items = KEYS.map((k) => delivery(run * 10 + k, pipeline));
      let now = 5_000_000 + run * 1_000_000;
      await f.at(now);
      await ledger.discover(items);
      // the model: the lease, each row, and what each replica holds in memory
      const lease = { holder: null as string | null, epoch: 0, until: 0 };
      const rows = items.map(() => ({ state: 'pending' as 'pending' | 'delivered' | 'dead', attempts: 0, records: [] as { w: string; epoch: number }[] }));
      const grants = new Map<string, LeaseGrant>();
      const inFlight = new Map<string, Set<number>>(WRITERS.map((w) => [w, new Set<number>()]));
      const sent: string[][] = items.map(() => []);
      const live = (w: string, g: LeaseGrant | undefined): boolean => g !== undefined && lease.holder === w && lease.epoch === g.epoch && lease.until > now;
      const renewModel = (): void => void (lease.until = Math.max(lease.until, now + LEASE));

      for (const s of steps) {
        if (s.op === 'pause') {
          now += s.ms;
          await f.at(now);
          continue;
        }
        const g = grants.get(s.w);
        const row = rows[s.k]!;
        const key = items[s.k]!.key;
        switch (s.op) {
          case 'crash':
            grants.delete(s.w);
            inFlight.get(s.w)!.clear();
            break;
          case 'claim': {
            if (g) break;
            const got = await ledger.claim(pipeline, s.w);
            expect(got !== null).toBe(lease.holder === null || lease.until <= now);
            if (got) {
              expect(got.epoch).toBe(lease.epoch + 1);
              Object.assign(lease, { holder: s.w, epoch: got.epoch, until: got.untilMs });
              grants.set(s.w, got);
            }
            break;
          }
          case 'release': {
            if (!g) break;
            const ok = await ledger.release(g);
            expect(ok).toBe(lease.holder === s.w && lease.epoch === g.epoch);
            if (ok) Object.assign(lease, { holder: null, until: 0 });
            grants.delete(s.w);
            break;
          }
          case 'begin': {
            if (!g) break;
            const expected = live(s.w, g) && row.state === 'pending';
            const attempt = await ledger.beginAttempt(g, key, 1);
            expect(attempt !== null).toBe(expected);
            if (live(s.w, g)) renewModel();
            if (attempt !== null) {
              row.attempts++;
              expect(attempt).toBe(row.attempts);
              inFlight.get(s.w)!.add(s.k);
            }
            break;
          }
          case 'send':
            // only a replica with a started attempt sends; the request carries the row's key
            if (inFlight.get(s.w)!.has(s.k)) sent[s.k]!.push(key);
            break;
          case 'delivered':
          case 'failed': {
            // a record may also come without a started attempt (a duplicate or confused sender)
            if (!g) break;
            inFlight.get(s.w)!.delete(s.k);
            const held = live(s.w, g);
            const dead = s.op === 'failed' && row.attempts >= MAX_ATTEMPTS;
            const ok = s.op === 'delivered' ? await ledger.recordDelivered(g, key) : await ledger.recordFailure(g, key, 'HTTP 500', dead);
            // a record lands exactly when the writer's lease is live and the row still pending
            expect(ok).toBe(held && row.state === 'pending');
            if (held) renewModel();
            if (ok && (s.op === 'delivered' || dead)) {
              row.state = s.op === 'delivered' ? 'delivered' : 'dead';
              row.records.push({ w: s.w, epoch: g.epoch });
            }
            break;
          }
        }
      }
      for (const [i, item] of items.entries()) {
        const m = rows[i]!;
        const db = (await ledger.get(item.key))!;
        // never two recorded outcomes for one key, and the table says who recorded it
        expect(m.records.length).toBeLessThanOrEqual(1);
        expect(db.state).toBe(m.state);
        expect(db.attempts).toBe(m.attempts);
        if (m.records[0]) expect({ w: db.deliveredBy, epoch: db.deliveredEpoch }).toEqual(m.records[0]);
        else expect(db.deliveredBy).toBeNull();
        expect(sent[i]!.every((k) => k === item.key)).toBe(true);
      }
    }),
    { numRuns },
  );
}
