/** A lease host table and a simulated database clock on a SqlClient (SQLite in unit tests, PostgreSQL in integration). */
import { randomBytes } from 'node:crypto';
import { FencedLease, LEASE_COLUMNS_DDL, type LeaseOptions, type TableClock, tableClock } from '../../../src/core/lease/index.js';
import type { SqlClient } from '../../../src/core/sql/sql-client.js';

export const T0 = 1_800_000_000_000;

export interface LeaseFixture {
  readonly db: SqlClient;
  readonly clock: TableClock;
  readonly table: string;
  lease(options?: LeaseOptions): FencedLease;
  addRow(key: string): Promise<void>;
  at(ms: number): Promise<void>;
  drop(): Promise<void>;
}

export async function leaseFixture(db: SqlClient): Promise<LeaseFixture> {
  const suffix = randomBytes(4).toString('hex');
  const table = `leases_${suffix}`;
  const clock = tableClock(`clock_${suffix}`);
  await db.exec(`CREATE TABLE ${table} (name TEXT PRIMARY KEY, payload TEXT, done_at BIGINT, ${LEASE_COLUMNS_DDL})`);
  await clock.install(db, T0);
  return {
    db,
    clock,
    table,
    lease: (options = {}) => new FencedLease(db, { table, keyColumn: 'name' }, { clock, leaseMs: 10_000, ...options }),
    addRow: async (key) => void (await db.run(`INSERT INTO ${table} (name) VALUES (?)`, [key])),
    at: (ms) => clock.set(db, ms),
    drop: async () => {
      await db.exec(`DROP TABLE ${table}; DROP TABLE ${clock.table}`);
    },
  };
}
