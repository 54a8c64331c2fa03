import { type Node, allNodes, dataOf, identName, typeOf } from './ast-node.js';
import { parseTemplate } from './template.js';

/**
 * The column names an RLS filter reads (as PostgreSQL binds them: unquoted names folded to lower
 * case), in order of first use; a qualified `t.col` counts as `col` (a filter reads one table).
 * Undefined when the filter does not parse as a predicate — rowFilterExpression reports that.
 */
export function filterColumns(filter: string): readonly string[] | undefined {
  const stmts = parseTemplate(`SELECT 1 WHERE (${filter})`);
  if (!stmts || stmts.length !== 1) return undefined;
  const where: Node | undefined = dataOf(stmts[0]!)?.where_clause?.this;
  if (!where) return undefined;
  const out: string[] = [];
  for (const [n] of allNodes(where)) {
    if (typeOf(n) !== 'column') continue;
    const name = identName(dataOf(n).name);
    if (name !== undefined && !out.includes(name)) out.push(name);
  }
  return out;
}
