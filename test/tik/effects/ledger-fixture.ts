/** A delivery ledger on a simulated database clock, in fresh tables (SQLite in unit tests, PostgreSQL in integration). */
import { randomBytes } from 'node:crypto';
import { tableClock, type TableClock } from '../../../src/core/lease/index.js';
import type { SqlClient } from '../../../src/core/sql/sql-client.js';
import { DeliveryLedger, effectKey, type NewDelivery } from '../../../src/tik/effects/index.js';

export const T0 = 1_800_000_000_000;
export const LEASE = 10_000;

export interface LedgerFixture {
  readonly db: SqlClient;
  readonly clock: TableClock;
  readonly prefix: string;
  ledger(leaseMs?: number): Promise<DeliveryLedger>;
  at(ms: number): Promise<void>;
  drop(): Promise<void>;
}

export async function ledgerFixture(db: SqlClient): Promise<LedgerFixture> {
  const suffix = randomBytes(4).toString('hex');
  const prefix = `fx${suffix}_`;
  const clock = tableClock(`clock_${suffix}`);
  await clock.install(db, T0);
  return {
    db,
    clock,
    prefix,
    ledger: (leaseMs = LEASE) => DeliveryLedger.open(db, { prefix, leaseMs, clock }),
    at: (ms) => clock.set(db, ms),
    drop: async () => {
      for (const t of [`${prefix}leases`, `${prefix}deliveries`, clock.table]) await db.exec(`DROP TABLE IF EXISTS ${t}`);
    },
  };
}

/** A delivery of `ticket` reaching `stage` to `url` on `pipeline`. */
export function delivery(n: number, pipeline = 'default', url = 'http://127.0.0.1:9/hook'): NewDelivery {
  const ticket = `0b0e5d1c-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const key = effectKey(ticket, ':done', { type: 'webhook', url });
  return { key, pipeline, ticket, stage: ':done', type: 'webhook', url, payload: JSON.stringify({ key, n }) };
}
