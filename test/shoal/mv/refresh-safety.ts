/**
 * The lease safety law on a simulated DATABASE clock: random schedules of claims, heartbeats,
 * pauses (time passing while a writer does nothing), crashes (a writer forgets its claim without
 * releasing), commits and releases by three writers. Every operation's result is checked against
 * an independent model of the lease, and the laws are checked directly:
 *   - never two commits in one lease epoch;
 *   - never a snapshot published by a writer whose lease had expired (or was never held);
 *   - the published snapshot_id is always the last successful commit's.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { expect } from 'vitest';
import { type TableClock, tableClock } from '../../../src/core/lease/index.js';
import type { SqlClient } from '../../../src/core/sql/sql-client.js';
import { RefreshCatalog, type RefreshClaim } from '../../../src/shoal/mv/refresh-catalog.js';

const LEASE = 1_000;
const WRITERS = ['A', 'B', 'C'] as const;
type W = (typeof WRITERS)[number];

type Step =
  | { readonly op: 'claim' | 'renew' | 'commit' | 'release' | 'crash'; readonly w: W }
  | { readonly op: 'pause'; readonly ms: number };

const writer = fc.constantFrom(...WRITERS);
export const schedules = fc.array(
  fc.oneof(
    fc.record({ op: fc.constantFrom('claim' as const, 'renew' as const, 'commit' as const, 'release' as const, 'crash' as const), w: writer }),
    // pauses straddle the lease length, with its exact boundary over-represented
    fc.record({ op: fc.constant('pause' as const), ms: fc.oneof(fc.integer({ min: 0, max: 2 * LEASE }), fc.constantFrom(LEASE, LEASE - 1, Math.floor(LEASE / 3))) }),
  ),
  { minLength: 1, maxLength: 40 },
);

export interface SafetyRig {
  /** Unique per rig, so rows left by an interrupted earlier run can never collide. */
  readonly prefix: string;
  readonly catalog: RefreshCatalog;
  readonly clock: TableClock;
  readonly db: SqlClient;
}

export async function safetyRig(db: SqlClient): Promise<SafetyRig> {
  const clock = tableClock('mv_sim_clock');
  await clock.install(db, 0);
  const catalog = await RefreshCatalog.open(db, { clock, leaseMs: LEASE });
  return { prefix: `mv-safety-${randomBytes(4).toString('hex')}`, catalog, clock, db };
}

/** Run one schedule and assert the laws. */
export async function runSchedule(rig: SafetyRig, steps: readonly Step[], run: number): Promise<void> {
  const { catalog, clock, db } = rig;
  const id = `${rig.prefix}-${run}`;
  let now = 1_000_000;
  await clock.set(db, now);
  await catalog.seed({ id, sourceTables: ['t'] });
  // the model: who holds the row, in which epoch, until when
  let holder: W | null = null;
  let epoch = 0;
  let until = 0;
  const held = new Map<W, RefreshClaim>();
  const committedEpochs = new Set<number>();
  let published: string | null = null;
  let n = 0;
  for (const s of steps) {
    if (s.op === 'pause') {
      now += s.ms;
      await clock.set(db, now);
      continue;
    }
    const mine = held.get(s.w);
    if (s.op === 'crash') {
      held.delete(s.w);
    } else if (s.op === 'claim') {
      if (mine) continue; // a live process does not claim what it believes it holds
      const r = await catalog.claim(id, s.w, { definitionVersion: 'd1', inputVersion: null }, { force: true });
      const free = holder === null || until <= now;
      expect(r.claimed).toBe(free);
      if (r.claimed) {
        epoch += 1;
        expect(r.claim.grant.epoch).toBe(epoch);
        expect(r.claim.grant.reclaimedFrom).toBe(holder);
        holder = s.w;
        until = now + LEASE;
        held.set(s.w, r.claim);
      }
    } else if (mine) {
      const live = holder === s.w && epoch === mine.grant.epoch && until > now;
      if (s.op === 'renew') {
        const r = await catalog.renew(mine);
        expect(r !== null).toBe(live);
        if (r) {
          until = Math.max(until, now + LEASE);
          held.set(s.w, r);
        } else held.delete(s.w);
      } else if (s.op === 'commit') {
        const snapshot = `snap-${run}-${++n}-${s.w}`;
        const ok = await catalog.commit(mine, { rowCount: n, snapshotId: snapshot });
        expect(ok).toBe(live);
        if (ok) {
          // the laws, checked against the model at the instant of the commit
          expect(committedEpochs.has(mine.grant.epoch)).toBe(false);
          expect(until).toBeGreaterThan(now);
          committedEpochs.add(mine.grant.epoch);
          published = snapshot;
          holder = null;
        }
        held.delete(s.w);
      } else {
        const ok = await catalog.release(mine, { error: 'boom' });
        expect(ok).toBe(holder === s.w && epoch === mine.grant.epoch);
        if (ok) holder = null;
        held.delete(s.w);
      }
    }
    const row = (await catalog.get(id))!;
    expect(row.snapshotId).toBe(published);
    expect(row.leaseEpoch).toBe(epoch);
    expect(row.writer).toBe(holder);
  }
  const log = await catalog.log(id, { limit: 1000 });
  const refreshed = log.filter((e) => e.outcome === 'refreshed');
  expect(refreshed.length).toBe(committedEpochs.size);
  expect(new Set(refreshed.map((e) => e.leaseEpoch)).size).toBe(refreshed.length);
}

export const safetyProperty = (rig: SafetyRig) => {
  let run = 0;
  return fc.asyncProperty(schedules, (steps) => runSchedule(rig, steps, ++run));
};
