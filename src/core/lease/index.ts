/**
 * The fenced lease primitive (law S3 for shoal's MV refresh, law T6 for tik's effect delivery).
 *
 * A host table has a text key and the lease columns; every operation is one conditional UPDATE on
 * the database clock. For example, a per-pipeline effect-delivery lease:
 *
 *   CREATE TABLE effect_leases (pipeline TEXT PRIMARY KEY, delivered_through TEXT, ${LEASE_COLUMNS_DDL});
 *   const lease = new FencedLease(db, { table: 'effect_leases', keyColumn: 'pipeline' }, { leaseMs: 30_000 });
 *   const grant = await lease.claim('billing', writerToken);        // null: someone else delivers
 *   const beat = startHeartbeat(lease, grant);                       // aborts beat.signal when lost
 *   … deliver, honouring beat.signal …
 *   await beat.stop();
 *   await lease.commit(beat.current(), { set: { delivered_through: lastEventId } }); // false: lost
 *
 * Insert the row once per key (`INSERT … ON CONFLICT DO NOTHING`) before claiming it.
 */
export { type DbClock, databaseClock } from './db-clock.js';
export { type TableClock, tableClock } from './table-clock.js';
export { DEFAULT_LEASE_MS, LEASE_COLUMNS_DDL } from './lease-columns.js';
export {
  type Assignment,
  type Assignments,
  type ClaimOptions,
  type FenceOptions,
  FencedLease,
  LEASE_NOW,
  type LeaseGrant,
  type LeaseOptions,
  type LeaseState,
  type LeaseTable,
  type SqlFragment,
} from './fenced-lease.js';
export { type Heartbeat, type HeartbeatOptions, type Schedule, realSchedule, startHeartbeat } from './heartbeat.js';
