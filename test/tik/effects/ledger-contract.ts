/**
 * The delivery ledger's behaviour, run on every database (SQLite here, PostgreSQL in integration):
 * discovery is idempotent, one lease holder per pipeline, every sender write is fenced on the
 * lease, `delivered` is recorded once, failures back off and turn into a dead letter.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SqlClient } from '../../../src/core/sql/sql-client.js';
import type { DeliveryLedger } from '../../../src/tik/effects/index.js';
import { LEASE, T0, delivery, ledgerFixture, type LedgerFixture } from './ledger-fixture.js';

export function ledgerContract(open: () => Promise<SqlClient>): void {
  let db: SqlClient;
  let f: LedgerFixture;
  let ledger: DeliveryLedger;
  beforeAll(async () => {
    db = await open();
    f = await ledgerFixture(db);
    ledger = await f.ledger();
  });
  afterAll(async () => {
    await f.drop();
    await db.close();
  });

  it('discovery adds each key once, whoever reports it and however often', async () => {
    await f.at(T0);
    const d = [delivery(1), delivery(2)];
    expect(await ledger.discover(d)).toBe(2);
    expect(await ledger.discover([...d, delivery(1)])).toBe(0);
    expect([...(await ledger.known([d[0]!.key, 'nope', d[1]!.key]))].sort()).toEqual([d[0]!.key, d[1]!.key].sort());
    const row = await ledger.get(d[0]!.key);
    expect(row).toMatchObject({ state: 'pending', attempts: 0, nextAttemptAt: T0, createdAt: T0, ticket: d[0]!.ticket, payload: d[0]!.payload });
    // opening the ledger again (another replica starting) keeps the rows
    expect((await (await f.ledger()).get(d[0]!.key))?.state).toBe('pending');
  });

  it('one lease holder per pipeline; a holder records delivered once, with its writer and epoch', async () => {
    await f.at(T0 + 1_000);
    const d = delivery(3, 'p-once');
    await ledger.discover([d]);
    const a = await ledger.claim('p-once', 'A');
    expect(a).not.toBeNull();
    expect(await ledger.claim('p-once', 'B')).toBeNull();
    expect((await ledger.due('p-once')).map((r) => r.key)).toEqual([d.key]);
    expect(await ledger.beginAttempt(a!, d.key, 500)).toBe(1);
    expect((await ledger.get(d.key))?.nextAttemptAt).toBe(T0 + 1_500);
    expect(await ledger.recordDelivered(a!, d.key)).toBe(true);
    expect(await ledger.recordDelivered(a!, d.key)).toBe(false);
    expect(await ledger.get(d.key)).toMatchObject({ state: 'delivered', attempts: 1, deliveredBy: 'A', deliveredEpoch: a!.epoch, deliveredAt: T0 + 1_000 });
    expect(await ledger.due('p-once')).toEqual([]);
    expect(await ledger.release(a!)).toBe(true);
    expect(await ledger.claim('p-once', 'B')).not.toBeNull();
  });

  it('a sender whose lease expired records nothing; the next holder retries with the same key', async () => {
    await f.at(T0 + 100_000);
    const d = delivery(4, 'p-expire');
    await ledger.discover([d]);
    const a = (await ledger.claim('p-expire', 'A'))!;
    expect(await ledger.beginAttempt(a, d.key, 1_000)).toBe(1);
    // A stalls past its lease (exactly at the end is already too late)
    await f.at(T0 + 100_000 + LEASE);
    expect(await ledger.recordDelivered(a, d.key)).toBe(false);
    expect(await ledger.recordFailure(a, d.key, 'HTTP 500', false)).toBe(false);
    expect(await ledger.beginAttempt(a, d.key, 1_000)).toBeNull();
    expect(await ledger.get(d.key)).toMatchObject({ state: 'pending', attempts: 1, lastError: null });
    const b = (await ledger.claim('p-expire', 'B'))!;
    expect(b.reclaimedFrom).toBe('A');
    const [row] = await ledger.due('p-expire');
    expect(row?.key).toBe(d.key);
    expect(await ledger.beginAttempt(b, d.key, 1_000)).toBe(2);
    expect(await ledger.recordDelivered(b, d.key)).toBe(true);
    // A's stale grant cannot touch it either, even after B released the lease
    expect(await ledger.release(b)).toBe(true);
    expect(await ledger.recordDelivered(a, d.key)).toBe(false);
    expect(await ledger.get(d.key)).toMatchObject({ state: 'delivered', attempts: 2, deliveredBy: 'B' });
  });

  it('a failure keeps the row pending until its backoff passes; the last allowed failure is a dead letter', async () => {
    const t = T0 + 200_000;
    await f.at(t);
    const d = delivery(5, 'p-fail');
    await ledger.discover([d]);
    const g = (await ledger.claim('p-fail', 'A'))!;
    expect(await ledger.beginAttempt(g, d.key, 2_000)).toBe(1);
    expect(await ledger.recordFailure(g, d.key, 'ECONNREFUSED', false)).toBe(true);
    expect(await ledger.get(d.key)).toMatchObject({ state: 'pending', attempts: 1, lastError: 'ECONNREFUSED', nextAttemptAt: t + 2_000 });
    expect(await ledger.due('p-fail')).toEqual([]);
    await f.at(t + 1_999);
    expect(await ledger.due('p-fail')).toEqual([]);
    await f.at(t + 2_000);
    expect((await ledger.due('p-fail')).map((r) => r.key)).toEqual([d.key]);
    expect(await ledger.beginAttempt(g, d.key, 4_000)).toBe(2);
    expect(await ledger.recordFailure(g, d.key, 'HTTP 503', true)).toBe(true);
    expect(await ledger.get(d.key)).toMatchObject({ state: 'dead', attempts: 2, lastError: 'HTTP 503', deliveredBy: 'A' });
    expect(await ledger.recordDelivered(g, d.key)).toBe(false);
    expect((await ledger.list('dead')).map((r) => r.key)).toContain(d.key);
    const counts = await ledger.counts();
    expect(counts.dead).toBeGreaterThanOrEqual(1);
  });

  it('pipelines are independent leases, visible with their holder', async () => {
    await f.at(T0 + 300_000);
    const x = (await ledger.claim('p-x', 'A'))!;
    const y = await ledger.claim('p-y', 'B');
    expect(y).not.toBeNull();
    const states = await ledger.pipelines();
    expect(states.find((s) => s.key === 'p-x')).toMatchObject({ writer: 'A', live: true, epoch: x.epoch });
    expect(states.find((s) => s.key === 'p-y')).toMatchObject({ writer: 'B', live: true });
  });
}
