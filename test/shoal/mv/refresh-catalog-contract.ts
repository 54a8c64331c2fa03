/**
 * upstream's tests/unit/test_mv_fleet_coordination.py (federation-fleet.md §9), mirrored: two
 * instances A and B share one catalog. Run on SQLite (unit) and PostgreSQL (integration). The
 * database clock is a clock table so "1 s in the past" and "60 s in the future" are exact.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TableClock, tableClock } from '../../../src/core/lease/index.js';
import type { SqlClient } from '../../../src/core/sql/sql-client.js';
import { type MvDefinition, RefreshCatalog, type RefreshVersions } from '../../../src/shoal/mv/refresh-catalog.js';
import { refreshUnderLease, refuseRefresh } from '../../../src/shoal/mv/refresh-under-lease.js';

const T0 = 1_900_000_000_000;
const LEASE = 120_000;
const v = (input: string | null, definition = 'sha256:def1'): RefreshVersions => ({ definitionVersion: definition, inputVersion: input, inputVersionKind: input ? 'watermark' : null });

export function refreshCatalogContract(name: string, open: () => Promise<SqlClient>): void {
  describe(`refresh catalog coordination on ${name}`, () => {
    let db: SqlClient;
    let clock: TableClock;
    let catalog: RefreshCatalog;
    let mv: MvDefinition;
    beforeEach(async () => {
      db = await open();
      clock = tableClock(`clock_${randomBytes(4).toString('hex')}`);
      await clock.install(db, T0);
      catalog = await RefreshCatalog.open(db, { clock, leaseMs: LEASE });
      mv = { id: `mv-${randomBytes(4).toString('hex')}`, sourceTables: ['orders', 'customers'], targetTable: 'orders_mv', customSql: 'SELECT 1' };
    });
    afterEach(async () => {
      await db.run('DELETE FROM materialized_views WHERE id = ?', [mv.id]);
      await db.exec(`DROP TABLE ${clock.table}`);
      await db.close();
    });
    const at = (ms: number) => clock.set(db, ms);

    it('1. before the seed the claim fails; seeding twice is fine; after the seed the claim succeeds', async () => {
      expect(await catalog.claim(mv.id, 'A', v('v1'))).toMatchObject({ claimed: false, reason: 'missing' });
      expect(await catalog.seed(mv)).toBe(true);
      expect(await catalog.seed({ ...mv, customSql: 'SELECT 2' })).toBe(false);
      expect((await catalog.get(mv.id))?.customSql).toBe('SELECT 1');
      expect((await catalog.claim(mv.id, 'A', v('v1'))).claimed).toBe(true);
    });

    it("2. A's claim wins and B's loses; the row says writer=A, status=refreshing", async () => {
      await catalog.seed(mv);
      expect((await catalog.claim(mv.id, 'A', v('v1'))).claimed).toBe(true);
      expect(await catalog.claim(mv.id, 'B', v('v1'))).toMatchObject({ claimed: false, reason: 'held', holder: 'A' });
      expect(await catalog.get(mv.id)).toMatchObject({ writer: 'A', status: 'refreshing', leaseUntilMs: T0 + LEASE, leaseEpoch: 1 });
    });

    it('3. with v9 materialized, a claim for v9 is skipped and a claim for v10 succeeds', async () => {
      await catalog.seed(mv);
      const won = await catalog.claim(mv.id, 'A', v('v9'));
      if (!won.claimed) throw new Error('claim lost');
      expect(await catalog.commit(won.claim, { rowCount: 1, snapshotId: 's9' })).toBe(true);
      expect(await catalog.claim(mv.id, 'B', v('v9'))).toMatchObject({ claimed: false, reason: 'up_to_date' });
      expect((await catalog.claim(mv.id, 'B', v('v10'))).claimed).toBe(true);
    });

    it('3b. a definition change forces a claim even when the input version is unchanged', async () => {
      await catalog.seed(mv);
      const won = await catalog.claim(mv.id, 'A', v('v9', 'sha256:def1'));
      if (!won.claimed) throw new Error('claim lost');
      await catalog.commit(won.claim, { rowCount: 1, snapshotId: 's1' });
      expect((await catalog.claim(mv.id, 'B', v('v9', 'sha256:def1'))).claimed).toBe(false);
      const next = await catalog.claim(mv.id, 'B', v('v9', 'sha256:def2'));
      if (!next.claimed) throw new Error('claim lost');
      await catalog.commit(next.claim, { rowCount: 1, snapshotId: 's2' });
      expect((await catalog.claim(mv.id, 'A', v('v9', 'sha256:def2'))).claimed).toBe(false);
    });

    it('3c. with no input signal the interval decides (one refresh per interval across instances); a definition change or force claims at once', async () => {
      await catalog.seed({ ...mv, refreshInterval: 60 });
      const first = await catalog.claim(mv.id, 'A', v(null));
      if (!first.claimed) throw new Error('claim lost');
      await catalog.commit(first.claim, { rowCount: 1, snapshotId: 's1' });
      expect(await catalog.claim(mv.id, 'B', v(null))).toMatchObject({ claimed: false, reason: 'not_due' });
      await at(T0 + 59_999);
      expect((await catalog.claim(mv.id, 'B', v(null))).claimed).toBe(false);
      const changed = await catalog.claim(mv.id, 'B', v(null, 'sha256:def2'));
      if (!changed.claimed) throw new Error('a definition change must claim');
      await catalog.commit(changed.claim, { rowCount: 1, snapshotId: 's2' });
      const forced = await catalog.claim(mv.id, 'C', v(null, 'sha256:def2'), { force: true });
      if (!forced.claimed) throw new Error('force must claim');
      expect((await catalog.claim(mv.id, 'A', v('v1'), { force: true })).claimed).toBe(false);
      await catalog.commit(forced.claim, { rowCount: 1, snapshotId: 's3' });
      await at(T0 + 60_000 + 59_999);
      expect((await catalog.claim(mv.id, 'A', v(null, 'sha256:def2'))).claimed).toBe(true);
    });

    it('4. a lease 1 s in the past lets B reclaim; a lease 60 s in the future blocks B', async () => {
      await catalog.seed(mv);
      await catalog.claim(mv.id, 'A', v('v1'));
      await at(T0 + LEASE - 60_000);
      expect((await catalog.claim(mv.id, 'B', v('v1'))).claimed).toBe(false);
      await at(T0 + LEASE + 1_000);
      const b = await catalog.claim(mv.id, 'B', v('v1'));
      expect(b).toMatchObject({ claimed: true, claim: { grant: { writer: 'B', epoch: 2, reclaimedFrom: 'A' } } });
      expect((await catalog.get(mv.id))?.writer).toBe('B');
      expect((await catalog.log(mv.id))[0]).toMatchObject({ outcome: 'reclaimed', writer: 'B', leaseEpoch: 2 });
    });

    it("5. while A holds the claim B fails; A releases with 'boom'; B then succeeds", async () => {
      await catalog.seed(mv);
      const a = await catalog.claim(mv.id, 'A', v('v1'));
      if (!a.claimed) throw new Error('claim lost');
      expect((await catalog.claim(mv.id, 'B', v('v1'))).claimed).toBe(false);
      expect(await catalog.release(a.claim, { error: 'boom' })).toBe(true);
      expect(await catalog.get(mv.id)).toMatchObject({ writer: null, status: 'stale', lastError: 'boom' });
      expect((await catalog.claim(mv.id, 'B', v('v1'))).claimed).toBe(true);
      expect((await catalog.log(mv.id)).map((e) => e.outcome)).toEqual(['failed', 'skipped']);
    });

    it('6. a commit by non-owner B fails; a commit by A leaves fresh, writer=NULL, input v1, row_count 10 and publishes the snapshot', async () => {
      await catalog.seed(mv);
      const a = await catalog.claim(mv.id, 'A', v('v1'));
      if (!a.claimed) throw new Error('claim lost');
      const forged = { ...a.claim, grant: { ...a.claim.grant, writer: 'B' } };
      expect(await catalog.commit(forged, { rowCount: 99, snapshotId: 'forged' })).toBe(false);
      expect((await catalog.get(mv.id))?.snapshotId).toBeNull();
      await at(T0 + 5_000);
      expect(await catalog.commit(a.claim, { rowCount: 10, snapshotId: 'snap-1' })).toBe(true);
      expect(await catalog.get(mv.id)).toMatchObject({
        status: 'fresh',
        writer: null,
        leaseUntilMs: null,
        materializedInputVersion: 'v1',
        materializedDefinitionVersion: 'sha256:def1',
        materializedInputVersionKind: 'watermark',
        rowCount: 10,
        snapshotId: 'snap-1',
        lastRefreshAtMs: T0 + 5_000,
      });
      const [last] = await catalog.log(mv.id);
      expect(last).toMatchObject({ outcome: 'refreshed', writer: 'A', leaseEpoch: 1, rowCount: 10, snapshotId: 'snap-1', durationMs: 5_000, inputVersion: 'v1' });
    });

    it("7. if A's own lease has expired, its commit fails and nothing is published", async () => {
      await catalog.seed(mv);
      const a = await catalog.claim(mv.id, 'A', v('v1'));
      if (!a.claimed) throw new Error('claim lost');
      await at(T0 + LEASE);
      expect(await catalog.commit(a.claim, { rowCount: 10, snapshotId: 'late' })).toBe(false);
      expect(await catalog.get(mv.id)).toMatchObject({ snapshotId: null, status: 'refreshing', writer: 'A' });
      expect((await catalog.log(mv.id))[0]).toMatchObject({ outcome: 'lost_lease', snapshotId: 'late' });
    });

    it('8. renew by the owner succeeds without moving lease_until backwards; renew by a non-owner fails', async () => {
      await catalog.seed(mv);
      const a = await catalog.claim(mv.id, 'A', v('v1'));
      if (!a.claimed) throw new Error('claim lost');
      await at(T0 + 30_000);
      const renewed = await catalog.renew(a.claim);
      expect(renewed?.grant.untilMs).toBe(T0 + 30_000 + LEASE);
      expect(renewed!.grant.untilMs).toBeGreaterThanOrEqual(a.claim.grant.untilMs);
      expect(await catalog.renew({ ...a.claim, grant: { ...a.claim.grant, writer: 'B' } })).toBeNull();
      expect((await catalog.get(mv.id))?.leaseUntilMs).toBe(T0 + 30_000 + LEASE);
    });

    it('9. a refresh while B holds a live lease builds nothing and leaves writer=B', async () => {
      await catalog.seed(mv);
      await catalog.claim(mv.id, 'B', v('v1'));
      const writes: string[] = [];
      const r = await refreshUnderLease(catalog, { definition: mv, writer: 'A', versions: v('v1') }, {
        build: async () => {
          writes.push('CREATE');
          return { snapshotId: 'x', rowCount: 7 };
        },
      });
      expect(r).toEqual({ outcome: 'skipped', reason: 'held', holder: 'B' });
      expect(writes).toEqual([]);
      expect(await catalog.get(mv.id)).toMatchObject({ writer: 'B', status: 'refreshing', snapshotId: null });
    });

    it('10. an uncontended refresh builds, then the row ends fresh, writer=NULL, row_count 7, with the snapshot published', async () => {
      const writes: string[] = [];
      const r = await refreshUnderLease(catalog, { definition: mv, writer: 'A', versions: v('v1') }, {
        build: async (claim, signal) => {
          expect(signal.aborted).toBe(false);
          expect(claim.grant.writer).toBe('A');
          writes.push('CREATE');
          return { snapshotId: 'snap-7', rowCount: 7 };
        },
      });
      expect(r).toEqual({ outcome: 'refreshed', snapshotId: 'snap-7', rowCount: 7, epoch: 1 });
      expect(writes).toEqual(['CREATE']);
      expect(await catalog.get(mv.id)).toMatchObject({ status: 'fresh', writer: null, rowCount: 7, snapshotId: 'snap-7' });
    });

    it('a failing build releases the MV as failed and keeps the last published snapshot', async () => {
      const ok = await refreshUnderLease(catalog, { definition: mv, writer: 'A', versions: v('v1') }, { build: async () => ({ snapshotId: 's1', rowCount: 1 }) });
      expect(ok.outcome).toBe('refreshed');
      const r = await refreshUnderLease(catalog, { definition: mv, writer: 'A', versions: v('v2') }, {
        build: async () => {
          throw new Error('source down');
        },
      });
      expect(r).toMatchObject({ outcome: 'failed', error: 'source down', epoch: 2 });
      expect(await catalog.get(mv.id)).toMatchObject({ status: 'stale', writer: null, snapshotId: 's1', lastError: 'source down' });
    });

    it('a guard that refuses (size, quota, preflight) releases the MV as skipped with the reason', async () => {
      const r = await refreshUnderLease(catalog, { definition: mv, writer: 'A', versions: v('v1') }, {
        build: async () => {
          throw refuseRefresh('source has 2000001 rows, over max_rows 1000000');
        },
      });
      expect(r).toEqual({ outcome: 'skipped', reason: 'refused', detail: 'source has 2000001 rows, over max_rows 1000000', epoch: 1 });
      expect(await catalog.get(mv.id)).toMatchObject({ status: 'stale', writer: null, lastError: 'source has 2000001 rows, over max_rows 1000000' });
      expect((await catalog.log(mv.id))[0]).toMatchObject({ outcome: 'skipped', reason: 'source has 2000001 rows, over max_rows 1000000', error: null });
    });

    it('a writer paused past its lease cannot publish: its snapshot is discarded and the peer that reclaimed publishes', async () => {
      const discarded: string[] = [];
      const r = await refreshUnderLease(
        catalog,
        { definition: mv, writer: 'A', versions: v('v1'), heartbeat: { schedule: () => () => undefined } },
        {
          build: async () => {
            // A is paused (no heartbeat runs) past its lease; B reclaims and publishes meanwhile
            await at(T0 + LEASE + 1);
            const b = await catalog.claim(mv.id, 'B', v('v1'));
            if (!b.claimed) throw new Error('B should reclaim');
            expect(await catalog.commit(b.claim, { rowCount: 2, snapshotId: 'snap-B' })).toBe(true);
            return { snapshotId: 'snap-A', rowCount: 1 };
          },
          discard: async (id) => void discarded.push(id),
        },
      );
      expect(r).toEqual({ outcome: 'lost_lease', epoch: 1 });
      expect(discarded).toEqual(['snap-A']);
      expect(await catalog.get(mv.id)).toMatchObject({ snapshotId: 'snap-B', status: 'fresh', writer: null });
      expect((await catalog.log(mv.id)).map((e) => e.outcome)).toEqual(['lost_lease', 'refreshed', 'reclaimed']);
    });

    it('reclaiming an expired lease runs the reconcile hook with the last committed snapshot; a failing hook releases the claim', async () => {
      const seen: string[] = [];
      const hooked = await RefreshCatalog.open(db, {
        clock,
        leaseMs: LEASE,
        onReclaim: async (info) => {
          seen.push(`${info.previousWriter}->${info.claim.grant.writer}@${info.row.snapshotId}`);
          if (info.claim.grant.writer === 'C') throw new Error('store unreachable');
        },
      });
      await hooked.seed(mv);
      const a = await hooked.claim(mv.id, 'A', v('v1'));
      if (!a.claimed) throw new Error('claim lost');
      await hooked.commit(a.claim, { rowCount: 1, snapshotId: 'snap-1' });
      await hooked.claim(mv.id, 'A', v('v2'));
      await at(T0 + LEASE);
      expect((await hooked.claim(mv.id, 'B', v('v2'))).claimed).toBe(true);
      await at(T0 + 2 * LEASE);
      await expect(hooked.claim(mv.id, 'C', v('v2'))).rejects.toMatchObject({ code: 'MV_RECONCILE_FAILED', epoch: 4 });
      expect(seen).toEqual(['A->B@snap-1', 'B->C@snap-1']);
      expect(await hooked.get(mv.id)).toMatchObject({ writer: null, status: 'stale', snapshotId: 'snap-1' });
      expect((await hooked.get(mv.id))?.lastError).toContain('store unreachable');
      // through refreshUnderLease the same failure is the outcome `failed`
      await hooked.claim(mv.id, 'C', v('v3'));
      await at(T0 + 3 * LEASE);
      const r = await refreshUnderLease(hooked, { definition: mv, writer: 'C', versions: v('v3') }, { build: async () => ({ snapshotId: 'never', rowCount: 0 }) });
      expect(r).toMatchObject({ outcome: 'failed', epoch: 6 });
      expect((r as { error: string }).error).toContain('store unreachable');
    });

    it('three instances refreshing the same MV at the same moment: exactly one refreshes, the others skip; one log row per version', async () => {
      const others = [await open(), await open()];
      try {
        const catalogs = [catalog, ...(await Promise.all(others.map((o) => RefreshCatalog.open(o, { clock, leaseMs: LEASE }))))];
        const builds: string[] = [];
        const round = (version: string) =>
          Promise.all(
            catalogs.map((c, i) =>
              refreshUnderLease(c, { definition: mv, writer: `I${i}`, versions: v(version), heartbeat: { schedule: () => () => undefined } }, {
                build: async (claim) => {
                  builds.push(`${claim.grant.writer}:${version}`);
                  return { snapshotId: `${version}-${claim.grant.writer}`, rowCount: 1 };
                },
              }),
            ),
          );
        for (const version of ['v1', 'v2']) {
          const results = await round(version);
          expect(results.filter((r) => r.outcome === 'refreshed')).toHaveLength(1);
          expect(results.filter((r) => r.outcome === 'skipped')).toHaveLength(2);
        }
        // the same versions again: nobody refreshes
        expect((await round('v2')).every((r) => r.outcome === 'skipped')).toBe(true);
        expect(builds.map((b) => b.split(':')[1])).toEqual(['v1', 'v2']);
        const log = await catalog.log(mv.id);
        expect(log.filter((e) => e.outcome === 'refreshed').map((e) => e.inputVersion)).toEqual(['v2', 'v1']);
        expect(log.filter((e) => e.outcome === 'skipped')).toHaveLength(7);
      } finally {
        await Promise.all(others.map((o) => o.close()));
      }
    });

    it('a heartbeat that finds the lease lost aborts the build; nothing is published or released', async () => {
      const pending: (() => void)[] = [];
      let stolen = false;
      const r = await refreshUnderLease(
        catalog,
        { definition: mv, writer: 'A', versions: v('v1'), heartbeat: { schedule: (fn) => (pending.push(fn), () => undefined) } },
        {
          build: async (_claim, signal) => {
            await at(T0 + LEASE + 5);
            const b = await catalog.claim(mv.id, 'B', v('v1'));
            stolen = b.claimed;
            pending.shift()!();
            await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
            throw signal.reason as Error;
          },
        },
      );
      expect(stolen).toBe(true);
      expect(r).toEqual({ outcome: 'lost_lease', epoch: 1 });
      expect(await catalog.get(mv.id)).toMatchObject({ writer: 'B', status: 'refreshing', snapshotId: null, leaseEpoch: 2 });
      expect((await catalog.log(mv.id))[0]).toMatchObject({ outcome: 'lost_lease', writer: 'A', leaseEpoch: 1 });
    });

    it('due lists enabled MVs past their interval on the database clock and not under a live lease', async () => {
      await catalog.seed({ ...mv, refreshInterval: 60 });
      await catalog.seed({ ...mv, id: `${mv.id}-off`, enabled: false });
      const ids = async () => (await catalog.due()).map((r) => r.id).filter((id) => id.startsWith(mv.id));
      try {
        expect(await ids()).toEqual([mv.id]);
        const a = await catalog.claim(mv.id, 'A', v('v1'));
        if (!a.claimed) throw new Error('claim lost');
        expect(await ids()).toEqual([]);
        expect(await catalog.leaseState(mv.id)).toMatchObject({ writer: 'A', live: true, epoch: 1, untilMs: T0 + LEASE });
        await at(T0 + 1_000);
        await catalog.commit(a.claim, { rowCount: 1, snapshotId: 's1' });
        await at(T0 + 60_999);
        expect(await ids()).toEqual([]);
        await at(T0 + 61_000);
        expect(await ids()).toEqual([mv.id]);
      } finally {
        await db.run('DELETE FROM materialized_views WHERE id = ?', [`${mv.id}-off`]);
      }
    });

    it('a disabled MV is never claimed', async () => {
      await catalog.seed({ ...mv, enabled: false });
      expect(await catalog.claim(mv.id, 'A', v('v1'))).toMatchObject({ claimed: false, reason: 'disabled' });
      expect(await catalog.get(mv.id)).toMatchObject({ enabled: false, status: 'stale', leaseEpoch: 0 });
    });

    it('the seed row keeps the definition columns (sorted join pattern, tier, interval)', async () => {
      await catalog.seed({ ...mv, consistency: 'distributed', refreshInterval: 60, joinPattern: { right_table: 'c', left_table: 'o' } });
      const row = (await catalog.get(mv.id))!;
      expect(row).toMatchObject({ consistency: 'distributed', refreshInterval: 60, sourceTables: ['orders', 'customers'], targetTable: 'orders_mv' });
      expect(row.joinPattern).toEqual({ left_table: 'o', right_table: 'c' });
      expect((await catalog.list()).some((r) => r.id === mv.id)).toBe(true);
    });
  });
}
