/**
 * The registry's tables (names follow upstream's tenant registry where it has one). Key fields are
 * real columns (with foreign keys where the relation is fixed); each row's full definition is
 * canonical JSON, so an unchanged entity compares equal byte for byte.
 */
import type { SqlClient } from '../../core/sql/sql-client.js';
import { ShoalError } from '../errors.js';

export const NOTIFY_CHANNEL = 'shoal_config_epoch';

/** The layout version this code reads and writes; a registry written by a newer shoal is refused. */
export const REGISTRY_SCHEMA_VERSION = 1;

const DDL = `
CREATE TABLE IF NOT EXISTS registry_meta (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  schema_version INTEGER NOT NULL
);
INSERT INTO registry_meta (id, schema_version) VALUES (1, ${REGISTRY_SCHEMA_VERSION}) ON CONFLICT (id) DO NOTHING;
CREATE TABLE IF NOT EXISTS config_epoch (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  epoch BIGINT NOT NULL
);
INSERT INTO config_epoch (id, epoch) VALUES (1, 0) ON CONFLICT (id) DO NOTHING;
CREATE TABLE IF NOT EXISTS domains (
  id TEXT PRIMARY KEY,
  definition TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sources (
  id TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  password_ref TEXT,
  definition TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS registered_tables (
  id TEXT PRIMARY KEY,
  source_id TEXT REFERENCES sources (id),
  domain_id TEXT NOT NULL REFERENCES domains (id),
  schema_name TEXT NOT NULL,
  table_name TEXT NOT NULL,
  definition TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS table_columns (
  table_id TEXT NOT NULL REFERENCES registered_tables (id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,
  name TEXT NOT NULL,
  definition TEXT NOT NULL,
  PRIMARY KEY (table_id, ordinal),
  UNIQUE (table_id, name)
);
CREATE TABLE IF NOT EXISTS roles (
  id TEXT PRIMARY KEY,
  parent_role_id TEXT,
  definition TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS relationships (
  id TEXT PRIMARY KEY,
  source_table_id TEXT NOT NULL REFERENCES registered_tables (id),
  target_table_id TEXT NOT NULL REFERENCES registered_tables (id),
  definition TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS rls_rules (
  target_kind TEXT NOT NULL CHECK (target_kind IN ('table', 'domain')),
  target_id TEXT NOT NULL,
  role_id TEXT NOT NULL REFERENCES roles (id),
  filter TEXT NOT NULL,
  PRIMARY KEY (target_kind, target_id, role_id)
);
`;

/** Create the tables if missing. On PostgreSQL concurrent starts serialise on an advisory lock. */
export async function migrateRegistry(client: SqlClient): Promise<void> {
  await client.transaction(async (tx) => {
    if (tx.dialect === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(7407351902)');
    await tx.exec(DDL);
    const rows = await tx.query<{ schema_version: number }>('SELECT schema_version FROM registry_meta WHERE id = 1');
    const version = Number(rows[0]?.schema_version);
    if (version !== REGISTRY_SCHEMA_VERSION) {
      throw new ShoalError('REGISTRY_VERSION', `the registry has layout version ${version}; this shoal reads version ${REGISTRY_SCHEMA_VERSION}`, {
        hint: 'run the shoal release that wrote this registry, or upgrade this instance',
      });
    }
  });
}
