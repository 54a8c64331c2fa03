/**
 * The `audit_log` table, in the registry's database (SQLite or PostgreSQL), so a fleet has one
 * audit log. Append-only by use: shoal never updates or deletes a row (retention is the
 * operator's, e.g. `DELETE FROM audit_log WHERE at_ms < …`). No SQL text and no literal value
 * is stored: only the fingerprint (sql-fingerprint.ts).
 */
import type { SqlClient, SqlDialect } from '../../core/sql/sql-client.js';

function ddl(dialect: SqlDialect): string {
  const serial = dialect === 'postgres' ? 'BIGSERIAL PRIMARY KEY' : 'INTEGER PRIMARY KEY AUTOINCREMENT';
  return `
CREATE TABLE IF NOT EXISTS audit_log (
  id ${serial},
  at_ms BIGINT NOT NULL,
  instance_id TEXT NOT NULL,
  principal TEXT NOT NULL,
  role_id TEXT,
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  status INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  sql_fingerprint TEXT,
  table_ids TEXT NOT NULL DEFAULT '[]',
  route TEXT,
  row_count BIGINT,
  duration_ms BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_log_by_time ON audit_log (at_ms);
CREATE INDEX IF NOT EXISTS audit_log_by_principal ON audit_log (principal, at_ms);
`;
}

/** Create the audit table if missing (concurrent starts serialise on PostgreSQL). */
export async function migrateAuditLog(db: SqlClient): Promise<void> {
  await db.transaction(async (tx) => {
    if (tx.dialect === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(7407351904)');
    await tx.exec(ddl(tx.dialect));
  });
}
