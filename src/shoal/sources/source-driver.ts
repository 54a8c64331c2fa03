/**
 * The Node-driver access to a relational source, shared by the engine's landing connectors and
 * the direct route. A driver runs one parameterised statement and returns its rows with the
 * driver's own column metadata, in a lossless form (see each driver for the value conventions).
 */
import type { CancelSignal } from './abortable.js';
import type { SqlLiteral } from './sql-literal.js';

export type SourceDialect = 'postgresql' | 'mysql' | 'sqlite';

/** Column metadata as the driver reports it. */
export type SourceColumn =
  | { readonly driver: 'postgresql'; readonly name: string; readonly oid: number; readonly typmod: number }
  | {
      readonly driver: 'mysql';
      readonly name: string;
      readonly mysqlType: number;
      readonly length: number;
      readonly decimals: number;
      readonly unsigned: boolean;
      readonly binary: boolean;
    }
  | { readonly driver: 'sqlite'; readonly name: string; readonly declared: string | null };

export interface FetchResult {
  readonly columns: readonly SourceColumn[];
  /** Rows in column order. Values: null, boolean, number, bigint, string, or Buffer (binary). */
  readonly rows: readonly (readonly unknown[])[];
}

export interface SourceDriver {
  readonly sourceId: string;
  readonly dialect: SourceDialect;
  /** Run one read-only statement with positional parameters. Failures are ShoalErrors naming the source. */
  query(sql: string, params: readonly SqlLiteral[], signal?: CancelSignal): Promise<FetchResult>;
  /** Resolve when the source answers a trivial statement; throw SOURCE_UNAVAILABLE otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The connection fields a driver needs (a subset of a source config; password unresolved). */
export interface SourceConnection {
  readonly id: string;
  readonly host?: string | undefined;
  readonly port?: number | undefined;
  readonly database?: string | undefined;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  readonly path?: string | undefined;
}

/** Bounds every driver applies to every statement it sends (from `server.limits`). */
export interface SourceLimits {
  /**
   * Server-side statement timeout in ms: PostgreSQL `statement_timeout`, MariaDB
   * `max_statement_time` (MySQL `max_execution_time`). SQLite cannot be interrupted mid-statement;
   * its driver checks the deadline before it starts one. Absent = no source-side timeout.
   */
  readonly statementTimeoutMs?: number;
}
