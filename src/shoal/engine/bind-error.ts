/**
 * A statement the engine refused to bind: its names, types, grouping or aggregates do not fit the
 * relations it reads (DuckDB's `Binder Error`; on Trino, grouping and aggregate placement only). Such a failure says
 * nothing about the data, so its text holds no row value; whose SQL it was is decided elsewhere
 * (src/shoal/sql/bare-query.ts).
 */
import { TrinoQueryError } from './trino/trino-client.js';

/**
 * Trino's errors of analysis (StandardErrorCode names) that are mistakes in any dialect: grouping
 * and aggregate placement. Name resolution and typing are left out: Trino is stricter than
 * PostgreSQL there (no implicit casts, no select-list alias in GROUP BY), so a refusal may be
 * the engine's dialect rather than the client's SQL, and stays a 502.
 */
const TRINO_ANALYSIS = new Set(['EXPRESSION_NOT_AGGREGATE', 'EXPRESSION_NOT_IN_DISTINCT', 'EXPRESSION_NOT_SCALAR', 'NESTED_AGGREGATION', 'NESTED_WINDOW']);

const DUCKDB_BINDER = /^Binder Error: ?/;

function chain(e: unknown): unknown[] {
  const out: unknown[] = [];
  for (let x: unknown = e, depth = 0; x !== undefined && x !== null && depth < 5; x = (x as { cause?: unknown }).cause, depth++) out.push(x);
  return out;
}

/** The engine's own words for a bind failure (first line, without the engine's prefix), or undefined when `e` is not one. */
export function bindFailureText(e: unknown): string | undefined {
  for (const x of chain(e)) {
    if (x instanceof TrinoQueryError) {
      return x.errorType === 'USER_ERROR' && TRINO_ANALYSIS.has(x.errorName) ? firstLine(x.trinoMessage.replace(/^line \d+:\d+: /, '')) : undefined;
    }
    if (x instanceof Error && DUCKDB_BINDER.test(x.message)) return firstLine(x.message.replace(DUCKDB_BINDER, ''));
  }
  return undefined;
}

const firstLine = (text: string): string => text.split('\n')[0]!.trim();
