/**
 * A statement the engine refused to bind: its names, types, grouping or aggregates do not fit the
 * relations it reads (DuckDB's `Binder Error`, Trino's analysis errors). Such a failure says
 * nothing about the data, so its text holds no row value; whose SQL it was is decided elsewhere
 * (src/shoal/sql/bare-query.ts).
 */
import { TrinoQueryError } from './trino/trino-client.js';

/** Trino's errors of analysis (StandardErrorCode names): the statement, not the data or the cluster. */
const TRINO_ANALYSIS = new Set([
  'AMBIGUOUS_NAME',
  'COLUMN_NOT_FOUND',
  'EXPRESSION_NOT_AGGREGATE',
  'EXPRESSION_NOT_IN_DISTINCT',
  'EXPRESSION_NOT_SCALAR',
  'FUNCTION_NOT_AGGREGATE',
  'FUNCTION_NOT_FOUND',
  'FUNCTION_NOT_WINDOW',
  'INVALID_COLUMN_REFERENCE',
  'MISMATCHED_COLUMN_ALIASES',
  'MISSING_GROUP_BY',
  'NESTED_AGGREGATION',
  'NESTED_WINDOW',
  'TYPE_MISMATCH',
]);

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
