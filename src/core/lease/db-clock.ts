/**
 * Where a lease reads the time: always the DATABASE's clock (law S3), never the instance's, so clock
 * skew between instances cannot shift lease semantics. A clock is a SQL expression that yields the
 * current time as integer milliseconds since the Unix epoch, evaluated inside the lease's own
 * statements. Tests inject a clock table instead (see ./table-clock.ts) to drive database time.
 */
import type { SqlDialect } from '../sql/sql-client.js';

export interface DbClock {
  /** A SQL expression (no placeholders) giving epoch milliseconds as an integer on `dialect`. */
  sql(dialect: SqlDialect): string;
}

/**
 * The database server's own clock. PostgreSQL uses `clock_timestamp()` rather than `now()`: inside
 * a transaction (a fenced commit that also renames a staging table) `now()` is the transaction's
 * start, which would let a lease that expired mid-transaction still pass the fence. SQLite reads
 * `julianday('now')`, the same machine's clock for every process sharing the file.
 */
export const databaseClock: DbClock = {
  sql(dialect) {
    return dialect === 'postgres'
      ? `(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000))::bigint`
      : `CAST(ROUND((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER)`;
  },
};
