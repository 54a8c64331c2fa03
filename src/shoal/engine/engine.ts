/**
 * The federation-engine contract. An engine holds only derived state (ARCHITECTURE.md S1): its
 * catalog is projected from registry entries by `reconcile`, and anything it fetches from a source
 * to answer a query lives only as long as that query. Implementations live one per folder
 * (`duckdb/`, later `trino/`), with the same file shape.
 */
import type { CatalogEntry, TableRef } from './catalog-entry.js';
import type { ResidentTables } from './resident-tables.js';
import type { SimplePredicate } from '../sources/simple-predicate.js';
import type { SqlLiteral } from '../sources/sql-literal.js';

/**
 * One output column. `type` is the engine's SQL type name as text (`INTEGER`, `BIGINT`,
 * `DECIMAL(12,2)`, `TIMESTAMP`, `DATE`, `BOOLEAN`, `VARCHAR`, `JSON`, …).
 */
export interface ColumnInfo {
  readonly name: string;
  readonly type: string;
}

/**
 * A cell in a result row, in a JSON-safe, lossless form: NULL → `null`; booleans; 8/16/32-bit
 * integers, FLOAT and DOUBLE → `number` (NaN/±Infinity as strings); BIGINT, HUGEINT and DECIMAL →
 * their exact decimal text; DATE `YYYY-MM-DD`; TIMESTAMP `YYYY-MM-DD HH:MM:SS[.ffffff]`; JSON →
 * the JSON text; nested types → JSON arrays/objects of cells.
 */
export type Cell = null | boolean | number | string | readonly Cell[] | { readonly [key: string]: Cell };

/** A slice of a streamed result. Every batch of one result carries the same `columns`. */
export interface RowBatch {
  readonly columns: readonly ColumnInfo[];
  readonly rows: readonly (readonly Cell[])[];
}

/**
 * What a query needs from one landed table: the source columns it reads (`undefined` = all)
 * and conjuncts that every row it reads satisfies. Pushdown only narrows what is fetched: the
 * engine SQL must still contain its own filters. When a query reads a table more than once,
 * pass one spec per reference (or one that covers them all); the engine lands the union of
 * columns and only the predicates common to every spec.
 */
export interface PushdownSpec {
  readonly table: TableRef;
  readonly columns?: readonly string[];
  readonly predicates?: readonly SimplePredicate[];
}

/** What landing one table for one query did; reported through `ExecuteOptions.onLanding`. */
export interface LandingReport {
  readonly table: TableRef;
  /** The statement sent to the source (parameterised; values are never inlined). */
  readonly sourceSql: string;
  readonly params: readonly SqlLiteral[];
  readonly columns: readonly ColumnInfo[];
  readonly rowsFetched: number;
}

export interface ExecuteOptions {
  readonly signal?: AbortSignal;
  /** Positional parameters for `$1`, `$2`, … (or `?`) in the SQL. */
  readonly params?: readonly SqlLiteral[];
  /** Per landed table: the projection and predicates to push into the source query. */
  readonly pushdown?: readonly PushdownSpec[];
  /** Called once per table landed for this query (metrics, tests). */
  readonly onLanding?: (report: LandingReport) => void;
}

/** The outcome of a `reconcile`: what changed, and the entries that could not be projected. */
export interface ReconcileReport {
  readonly created: readonly string[];
  readonly dropped: readonly string[];
  readonly unchanged: readonly string[];
  /** Entries whose projection failed (a missing file, an extension that cannot load, …). */
  readonly failed: readonly { readonly entry: string; readonly code: string; readonly message: string }[];
}

export interface SourceHealth {
  readonly sourceId: string;
  readonly ok: boolean;
  /** When not ok: the ShoalError code (`SOURCE_UNAVAILABLE`, `ENGINE_EXTENSION_UNAVAILABLE`, …). */
  readonly code?: string;
  readonly message?: string;
}

/** How an engine that has no `read_parquet` reads a published MV snapshot (a Parquet file of the snapshot store). */
export interface SnapshotReader {
  /** A SELECT of every row of the snapshot file at `path` (prepared once per file: snapshots are immutable). */
  body(path: string): Promise<string>;
  /**
   * Remove what the engine keeps for snapshot files the store has removed, once they have been gone
   * for `graceMs` (called after the store's own garbage collection).
   */
  collectGarbage?(options: { readonly graceMs: number }): Promise<{ readonly removed: readonly string[] }>;
}

export interface Engine {
  readonly name: 'duckdb' | 'trino';
  /** Absent: the engine reads a snapshot with DuckDB's `read_parquet` (mv-relation.ts). */
  readonly snapshots?: SnapshotReader;
  /** Tables the engine keeps between queries (hot-table copies), when it can hold any. */
  readonly resident?: ResidentTables;
  /**
   * Make the engine catalog exactly the projection of `entries`: create what is missing,
   * re-project what is stale or was dropped behind our back, remove what is no longer listed.
   * Same entries → same catalog, whatever state it starts from. A failure to project one entry
   * does not stop the others; it is listed in the report.
   */
  reconcile(entries: readonly CatalogEntry[]): Promise<ReconcileReport>;
  /** Run one read-only query, streaming its result. Landed data is gone when the stream ends. */
  execute(sql: string, options?: ExecuteOptions): AsyncIterable<RowBatch>;
  /** Reach a source through its connector without running a query. Never throws. */
  health(sourceId: string): Promise<SourceHealth>;
  close(): Promise<void>;
}
