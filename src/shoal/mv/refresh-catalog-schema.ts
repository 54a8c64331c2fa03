/**
 * The refresh catalog's tables, in the registry's database (SQLite or PostgreSQL): upstream's
 * `materialized_views` (federation-fleet.md §1.1) with the fenced lease's columns, the published
 * `snapshot_id` and the tier, and `mv_refresh_log`, one row per refresh outcome. Times are epoch
 * milliseconds on the DATABASE clock (`*_ms` columns), the same unit the lease fences on.
 */
import { LEASE_COLUMNS_DDL } from '../../core/lease/index.js';
import type { SqlClient, SqlDialect } from '../../core/sql/sql-client.js';

function ddl(dialect: SqlDialect): string {
  const serial = dialect === 'postgres' ? 'BIGSERIAL PRIMARY KEY' : 'INTEGER PRIMARY KEY AUTOINCREMENT';
  return `
CREATE TABLE IF NOT EXISTS materialized_views (
  id TEXT PRIMARY KEY,
  source_tables TEXT NOT NULL DEFAULT '[]',
  target_catalog TEXT,
  target_schema TEXT,
  target_table TEXT,
  refresh_interval INTEGER NOT NULL DEFAULT 300,
  enabled BOOLEAN NOT NULL DEFAULT TRUE,
  consistency TEXT NOT NULL DEFAULT 'shared' CHECK (consistency IN ('shared', 'distributed')),
  join_pattern TEXT,
  custom_sql TEXT,
  expose_in_sdl BOOLEAN NOT NULL DEFAULT FALSE,
  sdl_config TEXT,
  status TEXT NOT NULL DEFAULT 'stale' CHECK (status IN ('fresh', 'stale', 'refreshing', 'disabled')),
  last_refresh_at_ms BIGINT,
  row_count BIGINT,
  last_error TEXT,
  materialized_definition_version TEXT,
  materialized_input_version TEXT,
  materialized_input_version_kind TEXT,
  snapshot_id TEXT,
  ${LEASE_COLUMNS_DDL},
  calendar TEXT,
  grain TEXT,
  allowed_lateness INTEGER NOT NULL DEFAULT 0,
  expected_events TEXT,
  business_day_grain BOOLEAN NOT NULL DEFAULT FALSE,
  created_at_ms BIGINT
);
CREATE TABLE IF NOT EXISTS mv_refresh_log (
  id ${serial},
  mv_id TEXT NOT NULL REFERENCES materialized_views (id) ON DELETE CASCADE,
  outcome TEXT NOT NULL CHECK (outcome IN ('refreshed', 'skipped', 'lost_lease', 'failed', 'reclaimed')),
  reason TEXT,
  writer TEXT,
  lease_epoch BIGINT,
  row_count BIGINT,
  duration_ms BIGINT,
  error TEXT,
  definition_version TEXT,
  input_version TEXT,
  input_version_kind TEXT,
  snapshot_id TEXT,
  trace_id TEXT,
  created_at_ms BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS mv_refresh_log_by_mv ON mv_refresh_log (mv_id, id);
`;
}

/** Create the refresh catalog's tables if missing (concurrent starts serialise on PostgreSQL). */
export async function migrateRefreshCatalog(db: SqlClient): Promise<void> {
  await db.transaction(async (tx) => {
    if (tx.dialect === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(7407351903)');
    await tx.exec(ddl(tx.dialect));
  });
}
