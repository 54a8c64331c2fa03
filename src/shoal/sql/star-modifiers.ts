/**
 * `SELECT * EXCLUDE (…)`, `* REPLACE (…)` and `* RENAME (…)` are DuckDB and Snowflake
 * extensions; PostgreSQL has none of them. The parser accepts them, so a query using one would
 * mean one thing on the engine and fail on a direct route: it is refused on every route alike,
 * before governance, with a typed error (the result would otherwise depend on the route).
 */
import { ShoalError } from '../errors.js';
import { type Node, allNodes, dataOf, positionOf, typeOf } from './ast-node.js';

const MODIFIERS: readonly (readonly [key: string, word: string])[] = [['except', 'EXCLUDE'], ['replace', 'REPLACE'], ['rename', 'RENAME']];

export function refuseStarModifiers(stmt: Node, sql?: string): void {
  for (const [n] of allNodes(stmt)) {
    if (typeOf(n) !== 'star') continue;
    const d = dataOf(n);
    for (const [key, word] of MODIFIERS) {
      const v: unknown = d[key];
      if (v === null || v === undefined || (Array.isArray(v) && v.length === 0)) continue;
      const first = Array.isArray(v) ? (v[0] as Node) : undefined;
      const position = first && typeof first === 'object' ? positionOf(first, sql) : undefined;
      throw new ShoalError('SQL_UNSUPPORTED', `* ${word} (…) is not PostgreSQL and is not supported`, {
        ...(position ? { position } : {}),
        hint: 'list the columns you want instead of * (information_schema.columns or DESCRIBE lists them)',
      });
    }
  }
}
