import { ShoalError } from '../errors.js';
import { type Node, allNodes, dataOf, typeOf } from './ast-node.js';
import { type Clock, substituteCurrentTime } from './current-time.js';
import { parseTemplate } from './template.js';
import { type SessionVars, substituteSessionVars } from './session-vars.js';
import { validateStatement } from './validate.js';

/**
 * One RLS predicate as an expression node, ready to AND into a governed subquery. It is parsed
 * inside parentheses (so its precedence cannot leak into the user's expression, hazard H6),
 * held to the same allowlists as a user query, may not read other tables, and has its
 * `current_setting('provisa.<var>')` calls replaced by literals.
 */
export function rowFilterExpression(filter: string, tableKey: string, vars: SessionVars, clock: Clock): Node {
  const where = `row filter of ${tableKey}`;
  const bad = (why: string) => new ShoalError('SQL_BAD_POLICY', `${where}: ${why}`, { where, hint: 'fix the rls_rules filter in the config' });
  if (!filter.trim()) throw bad('it is empty');
  const stmts = parseTemplate(`SELECT 1 WHERE (${filter})`);
  if (!stmts || stmts.length !== 1) throw bad('it is not a valid PostgreSQL predicate');
  const stmt = stmts[0]!;
  const d = dataOf(stmt);
  if (typeOf(stmt) !== 'select' || !d.where_clause || d.from || d.group_by || d.order_by || d.limit) throw bad('it is not a single predicate');
  try {
    validateStatement(stmt);
  } catch (e) {
    throw bad(e instanceof Error ? e.message : String(e));
  }
  for (const [n] of allNodes(d.where_clause.this)) {
    if (typeOf(n) === 'table' || typeOf(n) === 'select') throw bad('a row filter may not read tables');
  }
  substituteSessionVars(d.where_clause.this, vars, where);
  substituteCurrentTime(d.where_clause.this, clock);
  return d.where_clause.this;
}
