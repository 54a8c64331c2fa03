/**
 * The limits no role can exceed (`server.limits` in the config): how long one request may run at
 * the engine and at every source, how much memory and spill space the engine may use, how large a
 * SQL text may be before it is even parsed, and how many requests one principal may have running
 * at once. They are operator settings: no role, session value or SQL text can raise them.
 */
import { deepFreeze } from './model.js';

export interface LimitsConfig {
  /** Seconds a request may run (planning, every source statement, the engine, the stream). Upstream's key. */
  readonly request_timeout: number;
  /** Bytes of SQL text (UTF-8) accepted; longer is refused before parsing. */
  readonly max_sql_bytes: number;
  /** Literals (strings and numbers) accepted in one SQL text. */
  readonly max_sql_literals: number;
  /** Lexical tokens accepted in one SQL text: parsing cost grows with them, faster than linearly for long boolean chains. */
  readonly max_sql_tokens: number;
  /** Nesting depth of parentheses and brackets. */
  readonly max_sql_depth: number;
  /** Requests one principal may have running at once on one instance; more are answered 429. */
  readonly max_concurrent_queries: number;
  /** DuckDB `memory_limit` (e.g. `2GB`); absent = DuckDB's default (80% of RAM). */
  readonly memory_limit?: string;
  /** DuckDB `max_temp_directory_size`, the spill space a query may use (e.g. `10GB`); absent = DuckDB's default. */
  readonly max_temp_directory_size?: string;
}

/** The defaults, chosen so that planning a text at the SQL limits stays well under a second (docs/shoal.md, Limits). */
export const DEFAULT_LIMITS: LimitsConfig = deepFreeze({
  request_timeout: 60,
  max_sql_bytes: 65_536,
  max_sql_literals: 1_000,
  max_sql_tokens: 2_000,
  max_sql_depth: 32,
  max_concurrent_queries: 16,
});

/** A byte size as DuckDB settings take it: a number and a unit (`512MB`, `2GB`, `1.5GiB`). */
export const BYTE_SIZE = /^\s*\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$/i;

/** The milliseconds of `request_timeout`. */
export function requestTimeoutMs(limits: LimitsConfig): number {
  return Math.max(1, Math.round(limits.request_timeout * 1000));
}
