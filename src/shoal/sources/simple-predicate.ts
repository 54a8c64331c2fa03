/**
 * A predicate a source evaluates itself (pushdown). It lives with the sources, which render it into
 * their own SQL (pushdown-sql.ts); the engine contract and the SQL layer use it from here.
 */
import type { SqlLiteral } from './sql-literal.js';

/** Operators a pushed-down predicate may use. `IS NULL`/`IS NOT NULL` take no value. */
export type PredicateOp = '=' | '<>' | '<' | '<=' | '>' | '>=' | 'LIKE' | 'IN' | 'IS NULL' | 'IS NOT NULL';

/** A `column op literal` conjunct that can be evaluated by the source itself. */
export type SimplePredicate =
  | { readonly column: string; readonly op: '=' | '<>' | '<' | '<=' | '>' | '>=' | 'LIKE'; readonly value: Exclude<SqlLiteral, null> }
  | { readonly column: string; readonly op: 'IN'; readonly values: readonly Exclude<SqlLiteral, null>[] }
  | { readonly column: string; readonly op: 'IS NULL' | 'IS NOT NULL' };
