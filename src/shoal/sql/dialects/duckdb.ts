import type { Node } from '../ast-node.js';
import { explicitNullOrdering } from './ordering.js';

/**
 * DuckDB orders NULLs last in both directions; PostgreSQL puts them first when descending.
 * Integer division needs the engine connection to run `SET integer_division = true` (DuckDB's `/`
 * is float division otherwise, corpus #35); the engine owns that setting.
 */
export function adaptForDuckdb(stmt: Node): void {
  explicitNullOrdering(stmt);
}
