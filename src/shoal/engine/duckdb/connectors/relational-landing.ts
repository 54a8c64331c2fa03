/**
 * Landing from a relational source through its Node driver: one parameterised SELECT carrying
 * the query's projection and pushed-down predicates, its rows typed by the driver mapping.
 */
import type { CatalogEntry } from '../../catalog-entry.js';
import { sourceSelectSql } from '../../../sources/pushdown-sql.js';
import type { SourceDialect } from '../../../sources/source-driver.js';
import type { SourcePool } from '../../../sources/source-pool.js';
import { landingColumnFor } from '../duckdb-types.js';
import type { LandedRows, LandingConnector, LandingNeed } from './connector.js';

export function relationalLanding(dialect: SourceDialect, pool: SourcePool): LandingConnector {
  const driverFor = (entry: CatalogEntry) => pool.driver(dialect, entry.source);
  return Object.freeze({
    kind: 'land' as const,
    async fetch(entry: CatalogEntry, need: LandingNeed, signal?: AbortSignal): Promise<LandedRows> {
      const stmt = sourceSelectSql(dialect, {
        // A SQLite file has one schema; the registered schema is only a name in shoal.
        schema: dialect === 'sqlite' ? undefined : entry.remoteSchema,
        table: entry.table,
        columns: need.columns,
        predicates: need.predicates,
      });
      const fetched = await driverFor(entry).query(stmt.sql, stmt.params, signal);
      const columns = fetched.columns.map((c, i) => landingColumnFor(c, c.driver === 'sqlite' ? fetched.rows.map((r) => r[i]) : []));
      return { sourceSql: stmt.sql, params: stmt.params, columns, rows: fetched.rows };
    },
    async ping(entry: CatalogEntry): Promise<void> {
      await driverFor(entry).ping();
    },
  });
}
