/**
 * The shapes of a DuckDB connector, one per source type (federation-fleet.md §4.1, §4.7):
 * a *scan* connector reads a file in place through a view; a *landing* connector fetches rows
 * through a Node driver for each query into a temp table; an *attach* connector ATTACHes the
 * source through a DuckDB extension.
 */
import type { CatalogEntry } from '../../catalog-entry.js';
import type { SimplePredicate } from '../../../sources/simple-predicate.js';
import type { SqlLiteral } from '../../../sources/sql-literal.js';
import type { LandingColumn } from '../duckdb-types.js';

export interface ScanConnector {
  readonly kind: 'scan';
  /** The SELECT the physical view is defined as (e.g. `SELECT * FROM read_csv_auto('…')`). */
  viewBody(entry: CatalogEntry): string;
  /** The file the entry reads, for health checks. */
  filePath(entry: CatalogEntry): string;
}

/** What one query needs from a landed table. */
export interface LandingNeed {
  readonly columns: readonly string[] | undefined;
  readonly predicates: readonly SimplePredicate[];
}

export interface LandedRows {
  readonly sourceSql: string;
  readonly params: readonly SqlLiteral[];
  readonly columns: readonly LandingColumn[];
  readonly rows: readonly (readonly unknown[])[];
}

export interface LandingConnector {
  readonly kind: 'land';
  fetch(entry: CatalogEntry, need: LandingNeed, signal?: AbortSignal): Promise<LandedRows>;
  /** Reach the source without fetching; throws SOURCE_UNAVAILABLE. */
  ping(entry: CatalogEntry): Promise<void>;
}

export interface AttachPlan {
  /** The DuckDB extension the attach needs. */
  readonly extension: 'postgres' | 'mysql' | 'sqlite';
  /** The attached database's name: `_src_<catalog>`. */
  readonly alias: string;
  /** INSTALL, LOAD, ATTACH, in order. The ATTACH carries the resolved secret: never log it. */
  readonly statements: readonly string[];
  /** The SELECT the physical view is defined as. */
  readonly viewBody: string;
}

export interface AttachConnector {
  readonly kind: 'attach';
  plan(entry: CatalogEntry, env: Readonly<Record<string, string | undefined>>): AttachPlan;
}

export type DuckDbConnector = ScanConnector | LandingConnector | AttachConnector;
