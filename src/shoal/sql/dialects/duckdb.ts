import { type Node, allNodes, dataOf, replaceInPlace, typeOf } from '../ast-node.js';
import { explicitNullOrdering } from './ordering.js';

/**
 * DuckDB orders NULLs last in both directions; PostgreSQL puts them first when descending.
 * PostgreSQL's `x ~ 'pattern'` is DuckDB's `regexp_matches(x, 'pattern')` (the generator emits a
 * REGEXP_LIKE DuckDB does not have, corpus #40).
 * Integer division needs the engine connection to run `SET integer_division = true` (DuckDB's `/`
 * is float division otherwise, corpus #35); the engine owns that setting.
 */
export function adaptForDuckdb(stmt: Node): void {
  explicitNullOrdering(stmt);
  for (const [n] of [...allNodes(stmt)]) {
    if (typeOf(n) !== 'regexp_like' || dataOf(n).flags) continue;
    const d = dataOf(n);
    replaceInPlace(n, {
      function: { name: 'regexp_matches', args: [d.this, d.pattern], distinct: false, trailing_comments: [], use_bracket_syntax: false, no_parens: false, quoted: false },
    });
  }
}
