/** The fenced lease's contract, run on SQLite (unit) and PostgreSQL (integration). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LEASE_NOW, type Schedule, databaseClock, startHeartbeat } from '../../../src/core/lease/index.js';
import type { SqlClient } from '../../../src/core/sql/sql-client.js';
import { T0, type LeaseFixture, leaseFixture } from './lease-fixture.js';

export function leaseContract(name: string, open: () => Promise<SqlClient>): void {
  describe(`fenced lease on ${name}`, () => {
    let db: SqlClient;
    let f: LeaseFixture;
    beforeEach(async () => {
      db = await open();
      f = await leaseFixture(db);
      await f.addRow('k');
    });
    afterEach(async () => {
      await f.drop();
      await db.close();
    });

    it('a claim on a missing row wins nothing', async () => {
      expect(await f.lease().claim('nope', 'A')).toBeNull();
    });

    it('the first claim wins with epoch 1 and a lease on the database clock; a second writer loses while it is live', async () => {
      const lease = f.lease();
      const a = await lease.claim('k', 'A');
      expect(a).toEqual({ key: 'k', writer: 'A', epoch: 1, untilMs: T0 + 10_000, reclaimedFrom: null });
      await f.at(T0 + 9_999);
      expect(await lease.claim('k', 'B')).toBeNull();
      const s = await lease.state('k');
      expect(s).toMatchObject({ writer: 'A', epoch: 1, untilMs: T0 + 10_000, nowMs: T0 + 9_999, live: true });
    });

    it('at lease_until == now the lease is free to claim and dead for the old holder (strict fences)', async () => {
      const lease = f.lease();
      const a = (await lease.claim('k', 'A'))!;
      await f.at(T0 + 10_000);
      expect(await lease.renew(a)).toBeNull();
      expect(await lease.commit(a)).toBe(false);
      const b = await lease.claim('k', 'B');
      expect(b).toMatchObject({ writer: 'B', epoch: 2, reclaimedFrom: 'A', untilMs: T0 + 20_000 });
      expect(await lease.commit(a)).toBe(false);
      expect(await lease.commit(b!)).toBe(true);
    });

    it('one millisecond before expiry the holder still commits', async () => {
      const lease = f.lease();
      const a = (await lease.claim('k', 'A'))!;
      await f.at(T0 + 9_999);
      expect(await lease.commit(a, { set: { payload: 'v1', done_at: LEASE_NOW } })).toBe(true);
      const rows = await db.query<{ payload: string; done_at: unknown; writer: unknown }>(`SELECT payload, done_at, writer FROM ${f.table}`);
      expect(rows[0]).toMatchObject({ payload: 'v1', writer: null });
      expect(Number(rows[0]!.done_at)).toBe(T0 + 9_999);
      expect(await lease.commit(a)).toBe(false);
    });

    it('every claim raises the epoch, so a holder that re-won its own row cannot use its old grant', async () => {
      const lease = f.lease();
      const first = (await lease.claim('k', 'A'))!;
      await f.at(T0 + 10_000);
      const second = (await lease.claim('k', 'A'))!;
      expect(second.epoch).toBe(first.epoch + 1);
      expect(second.reclaimedFrom).toBe('A');
      expect(await lease.renew(first)).toBeNull();
      expect(await lease.commit(first)).toBe(false);
      expect(await lease.release(first)).toBe(false);
      expect(await lease.commit(second)).toBe(true);
      const third = (await lease.claim('k', 'B'))!;
      expect(third).toMatchObject({ epoch: 3, reclaimedFrom: null });
    });

    it('renew extends the lease for the holder only, and never moves it backwards', async () => {
      const long = f.lease({ leaseMs: 60_000, clock: f.clock });
      const short = f.lease({ leaseMs: 1_000, clock: f.clock });
      const a = (await long.claim('k', 'A'))!;
      expect(a.untilMs).toBe(T0 + 60_000);
      await f.at(T0 + 5_000);
      expect((await short.renew(a))?.untilMs).toBe(T0 + 60_000);
      expect((await long.renew(a))?.untilMs).toBe(T0 + 65_000);
      expect(await long.renew({ ...a, writer: 'B' })).toBeNull();
      await f.at(T0 + 65_000);
      expect(await long.renew(a)).toBeNull();
    });

    it('release gives the row back, fenced on writer and epoch; it works on an expired lease nobody took', async () => {
      const lease = f.lease();
      const a = (await lease.claim('k', 'A'))!;
      expect(await lease.release({ ...a, writer: 'B' })).toBe(false);
      await f.at(T0 + 50_000);
      expect(await lease.release(a, { set: { payload: 'boom' } })).toBe(true);
      const b = (await lease.claim('k', 'B'))!;
      expect(b.reclaimedFrom).toBeNull();
      expect(await lease.release(a)).toBe(false);
      expect((await lease.state('k'))?.writer).toBe('B');
    });

    it('a caller condition and assignments take part in the same conditional UPDATE', async () => {
      const lease = f.lease();
      expect(await lease.claim('k', 'A', { condition: { sql: 'payload IS DISTINCT FROM ?', params: ['x'] }, set: { payload: 'x' } })).not.toBeNull();
      const a = (await lease.state('k'))!;
      expect(a.writer).toBe('A');
      await lease.release({ key: 'k', writer: 'A', epoch: a.epoch, untilMs: 0, reclaimedFrom: null });
      expect(await lease.claim('k', 'B', { condition: { sql: 'payload IS DISTINCT FROM ?', params: ['x'] } })).toBeNull();
      expect((await lease.state('k'))?.epoch).toBe(1);
    });

    it('lease columns cannot be assigned by a caller, and names must be plain identifiers', async () => {
      const lease = f.lease();
      await expect(lease.claim('k', 'A', { set: { writer: 'X' } })).rejects.toMatchObject({ code: 'LEASE_RESERVED_COLUMN' });
      await expect(lease.claim('k', 'A', { set: { 'payload = 1; --': 'X' } })).rejects.toMatchObject({ code: 'LEASE_BAD_IDENTIFIER' });
      expect(() => f.lease({ leaseMs: 0 })).toThrow(expect.objectContaining({ code: 'LEASE_BAD_LENGTH' }));
    });

    it('the production clock is the database server clock', async () => {
      const lease = f.lease({ clock: databaseClock, leaseMs: 120_000 });
      const a = (await lease.claim('k', 'A'))!;
      const s = (await lease.state('k'))!;
      // same machine: the database clock is today's time, and the lease runs 120 s past the claim
      expect(Math.abs(s.nowMs - Date.now())).toBeLessThan(3_600_000);
      expect(a.untilMs - s.nowMs).toBeLessThanOrEqual(120_000);
      expect(a.untilMs - s.nowMs).toBeGreaterThan(60_000);
      expect(s.live).toBe(true);
    });

    it('a heartbeat renews every beat and aborts its signal once the lease is found lost', async () => {
      const lease = f.lease();
      const pending: (() => void)[] = [];
      const schedule: Schedule = (fn) => {
        pending.push(fn);
        return () => undefined;
      };
      const a = (await lease.claim('k', 'A'))!;
      const beat = startHeartbeat(lease, a, { schedule });
      const tick = async () => {
        pending.shift()!();
        await new Promise((r) => setTimeout(r, 0));
        for (let i = 0; i < 20 && pending.length === 0 && !beat.signal.aborted; i++) await new Promise((r) => setTimeout(r, 5));
      };
      await f.at(T0 + 3_000);
      await tick();
      expect(beat.current().untilMs).toBe(T0 + 13_000);
      expect(beat.signal.aborted).toBe(false);
      await f.at(T0 + 13_000);
      await tick();
      expect(beat.signal.aborted).toBe(true);
      expect(beat.signal.reason).toMatchObject({ code: 'LEASE_LOST' });
      await beat.stop();
      expect(await lease.commit(beat.current())).toBe(false);
    });
  });
}
