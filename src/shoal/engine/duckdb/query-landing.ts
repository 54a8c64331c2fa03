/**
 * Landing a query's tables (S1: nothing landed outlives its query). Each landed table the query
 * needs is fetched through its Node driver, with the caller's projection and predicates pushed into
 * the source statement, into a temp table of the query's own connection; the catalog's view of the
 * entry reads that temp table by name, so concurrent queries each see their own landing.
 */
import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { ShoalError } from '../../errors.js';
import type { SimplePredicate } from '../../sources/simple-predicate.js';
import type { CatalogEntry, TableRef } from '../catalog-entry.js';
import type { ExecuteOptions, PushdownSpec } from '../engine.js';
import { pushablePredicates } from '../pushdown-safety.js';
import type { LandingNeed } from './connectors/connector.js';
import type { DuckDbConnectors } from './duckdb-connectors.js';
import { cancelled } from './duckdb-errors.js';
import { landRows } from './landing.js';

/** The connection-local temp table a landed entry's view reads. */
export function landingTableName(entry: Pick<CatalogEntry, 'key'>): string {
  const digest = createHash('sha256').update(entry.key).digest('hex').slice(0, 8);
  return `_land_${digest}_${entry.key.replace(/[^A-Za-z0-9_]/g, '_')}`.slice(0, 120);
}

function predicateKey(p: SimplePredicate): string {
  return JSON.stringify(p, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}

/** One need per table: the union of projections, and only the predicates every spec shares. */
export function mergeNeeds(specs: readonly PushdownSpec[]): Map<string, { ref: TableRef; need: LandingNeed }> {
  const out = new Map<string, { ref: TableRef; need: LandingNeed }>();
  for (const s of specs) {
    const k = JSON.stringify([s.table.sourceId, s.table.schema, s.table.table]);
    const mine: LandingNeed = { columns: s.columns, predicates: s.predicates ?? [] };
    const prev = out.get(k);
    if (prev === undefined) {
      out.set(k, { ref: s.table, need: mine });
      continue;
    }
    const columns =
      prev.need.columns === undefined || mine.columns === undefined ? undefined : [...new Set([...prev.need.columns, ...mine.columns])];
    const theirs = new Set(mine.predicates.map(predicateKey));
    out.set(k, { ref: prev.ref, need: { columns, predicates: prev.need.predicates.filter((p) => theirs.has(predicateKey(p))) } });
  }
  return out;
}

/** Land one entry's rows for a query on `conn` (a no-op for an entry that is not landed), reporting it through `onLanding`. */
export async function landTable(conn: DuckDBConnection, connectors: DuckDbConnectors, entry: CatalogEntry, need: LandingNeed, options: ExecuteOptions): Promise<void> {
  const connector = connectors.for(entry);
  if (connector.kind !== 'land') return;
  const safe: LandingNeed = { columns: need.columns, predicates: pushablePredicates(entry, need.predicates) };
  let fetched;
  try {
    fetched = await connector.fetch(entry, safe, options.signal);
  } catch (e) {
    // Pushdown is an optimization: if the source rejects the narrowed statement (a literal its
    // column type cannot take), fetch without predicates rather than fail the query.
    // (PostgreSQL reports that as a data exception: 22P02 invalid text representation.)
    if (!(e instanceof ShoalError && (e.code === 'SOURCE_QUERY_FAILED' || e.code === 'SQL_DATA_EXCEPTION') && safe.predicates.length > 0)) throw e;
    fetched = await connector.fetch(entry, { columns: need.columns, predicates: [] }, options.signal);
  }
  if (options.signal?.aborted) throw cancelled(options.signal);
  const columns = await landRows(conn, landingTableName(entry), entry.source.id, fetched.columns, fetched.rows);
  options.onLanding?.({
    table: { sourceId: entry.source.id, schema: entry.schema, table: entry.table },
    sourceSql: fetched.sourceSql,
    params: fetched.params,
    columns,
    rowsFetched: fetched.rows.length,
  });
}
