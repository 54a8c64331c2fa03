/**
 * A simulated database clock: a one-row table whose value the lease SQL reads as "now". It lives in
 * the database, so every lease statement sees the time the test set, exactly as it would see the
 * server's clock in production. For tests and simulations only; production uses `databaseClock`.
 */
import { CodedError } from '../errors.js';
import type { SqlExecutor } from '../sql/sql-client.js';
import type { DbClock } from './db-clock.js';
import { checkIdentifier } from './identifier.js';

export interface TableClock extends DbClock {
  readonly table: string;
  /** Create the table (if missing) and set the time. */
  install(db: SqlExecutor, nowMs: number): Promise<void>;
  /** Set the simulated time (epoch milliseconds). */
  set(db: SqlExecutor, nowMs: number): Promise<void>;
  /** Read the simulated time. */
  read(db: SqlExecutor): Promise<number>;
}

export function tableClock(table = 'lease_sim_clock'): TableClock {
  checkIdentifier(table, 'clock table');
  return {
    table,
    sql: () => `(SELECT now_ms FROM ${table} WHERE id = 1)`,
    async install(db, nowMs) {
      checkTime(nowMs);
      await db.exec(`CREATE TABLE IF NOT EXISTS ${table} (id INTEGER PRIMARY KEY CHECK (id = 1), now_ms BIGINT NOT NULL)`);
      await db.run(`INSERT INTO ${table} (id, now_ms) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET now_ms = excluded.now_ms`, [nowMs]);
    },
    async set(db, nowMs) {
      checkTime(nowMs);
      await db.run(`UPDATE ${table} SET now_ms = ? WHERE id = 1`, [nowMs]);
    },
    async read(db) {
      const rows = await db.query<{ now_ms: number | string }>(`SELECT now_ms FROM ${table} WHERE id = 1`);
      return Number(rows[0]?.now_ms);
    },
  };
}

function checkTime(ms: number): void {
  if (!Number.isSafeInteger(ms)) {
    throw new CodedError('LEASE_BAD_TIME', `simulated time ${ms} is not a whole number of milliseconds`, { hint: 'pass epoch milliseconds as an integer' });
  }
}
