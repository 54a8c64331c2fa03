/**
 * Which source types an engine reaches, and how: one explicit table per (engine, source type,
 * attach flag), reported by `shoal` in docs and by the engines in their reconcile reports. An
 * unreachable combination is an ENGINE_SOURCE_UNREACHABLE error that says what to do, never a
 * silently empty table.
 */
import { ShoalError } from '../errors.js';
import type { CatalogEntry, SourceType } from './catalog-entry.js';

/** Trino connector plugins a deployment may have installed for live source catalogs. */
export type TrinoConnectorName = 'postgresql' | 'mysql';

export type Reach =
  /** DuckDB: a view over the file, read in place. */
  | { readonly kind: 'scan' }
  /** Fetched per query through the source's Node driver (DuckDB: into a temp table; Trino: as Parquet in the shared scratch area). */
  | { readonly kind: 'land' }
  /** DuckDB: a live ATTACH through an extension. */
  | { readonly kind: 'attach' }
  /** Trino: the file read by DuckDB's reader and kept as Parquet in the shared scratch area, read through a hive catalog. */
  | { readonly kind: 'hive-file' }
  /** Trino: a catalog of Trino's own connector, created at reconcile with credentials resolved then. */
  | { readonly kind: 'connector'; readonly connector: TrinoConnectorName }
  | { readonly kind: 'unreachable'; readonly reason: string; readonly hint: string };

export interface TrinoReachOptions {
  /** The connector plugins the Trino deployment has (none by default: they are not fetched here). */
  readonly connectors?: readonly TrinoConnectorName[];
}

/** How `engine` reaches a source of `type` (with `attach` as configured). */
export function reachFor(engine: 'duckdb' | 'trino', type: SourceType, attach: boolean, options: TrinoReachOptions = {}): Reach {
  if (engine === 'duckdb') {
    if (type === 'csv' || type === 'parquet' || type === 'json') return { kind: 'scan' };
    if (attach && (type === 'postgresql' || type === 'mysql' || type === 'sqlite')) return { kind: 'attach' };
    return { kind: 'land' };
  }
  if (type === 'csv' || type === 'parquet' || type === 'json') return { kind: 'hive-file' };
  if (!attach) return { kind: 'land' };
  if (type === 'postgresql' || type === 'mysql') {
    if (options.connectors?.includes(type)) return { kind: 'connector', connector: type };
    return {
      kind: 'unreachable',
      reason: `attach: true asks Trino's own ${type} connector, which this Trino deployment does not have`,
      hint: `install the trino-${type} plugin on every Trino node and list it in the engine's connectors, or set attach: false to land the source`,
    };
  }
  return {
    kind: 'unreachable',
    reason: `Trino has no connector for ${type} sources`,
    hint: 'set attach: false: the source is then landed per query through its Node driver',
  };
}

/** Every combination, for documentation and `--help`-style reports. */
export function reachabilityTable(options: TrinoReachOptions = {}): { engine: 'duckdb' | 'trino'; type: SourceType; attach: boolean; reach: Reach['kind'] }[] {
  const types: SourceType[] = ['postgresql', 'mysql', 'sqlite', 'csv', 'parquet', 'json', 'tik'];
  const out: { engine: 'duckdb' | 'trino'; type: SourceType; attach: boolean; reach: Reach['kind'] }[] = [];
  for (const engine of ['duckdb', 'trino'] as const) {
    for (const type of types) {
      for (const attach of [false, true]) out.push({ engine, type, attach, reach: reachFor(engine, type, attach, options).kind });
    }
  }
  return out;
}

/** The error for an unreachable entry. */
export function unreachableError(entry: CatalogEntry, reach: Extract<Reach, { kind: 'unreachable' }>, engine: string): ShoalError {
  return new ShoalError('ENGINE_SOURCE_UNREACHABLE', `source "${entry.source.id}" (${entry.source.type}) cannot be reached by the ${engine} engine: ${reach.reason}`, {
    where: `sources.${entry.source.id}`,
    hint: reach.hint,
  });
}
