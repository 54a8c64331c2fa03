/** The fenced lease primitive (law S3 for shoal's MV refresh, law T6 for tik's effect delivery). */
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
