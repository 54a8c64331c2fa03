import { ShoalError } from '../errors.js';
import { ALLOWED_FUNCTIONS, ALLOWED_LITERALS, ALLOWED_NODES, FORBIDDEN_NODE } from './allowlist.js';
import { type Node, QUERY_TYPES, allNodes, dataOf, offsetToPosition, positionOf, typeOf } from './ast-node.js';

const at = (n: Node, sql?: string, word?: string) => {
  const p = positionOf(n, sql) ?? (sql && word ? wordPosition(sql, word) : undefined);
  return p ? { position: p } : {};
};

/** Where a name first appears in the text, for nodes the parser gives no span (function calls). */
function wordPosition(sql: string, word: string): { line: number; column: number } | undefined {
  const m = new RegExp(`(^|[^A-Za-z0-9_])(${word.replace(/[^A-Za-z0-9_]/g, '')})\\s*\\(`, 'i').exec(sql);
  return m ? offsetToPosition(sql, [...sql.slice(0, m.index + m[1]!.length)].length) : undefined;
}

/**
 * The statement guard: a read-only query and nothing else, anywhere in the tree (DML hidden in a
 * CTE or FROM is caught by the deep walk). Node types, function names and literal kinds are
 * allowlists that fail closed.
 */
export function validateStatement(stmt: Node, sql?: string): void {
  const root = typeOf(stmt);
  if (!QUERY_TYPES.has(root)) {
    throw new ShoalError('SQL_NOT_SELECT', `only SELECT queries are accepted, got a ${root.replace(/_/g, ' ').toUpperCase()} statement`, {
      ...at(stmt, sql),
      hint: 'shoal is read-only: send a SELECT (or a set operation of SELECTs)',
    });
  }
  for (const [n] of allNodes(stmt)) {
    const t = typeOf(n);
    const d = dataOf(n) ?? {};
    if (t === 'select' && d.into) {
      throw new ShoalError('SQL_NOT_SELECT', 'SELECT ... INTO creates a table and is not accepted', { ...at(n, sql), hint: 'drop the INTO clause' });
    }
    if (t === 'select' && d.locks?.length) {
      throw new ShoalError('SQL_NOT_SELECT', 'FOR UPDATE / FOR SHARE locking clauses are not accepted', { ...at(n, sql), hint: 'drop the locking clause' });
    }
    if (/^(parameter|placeholder|session_parameter)$/.test(t)) {
      throw new ShoalError('SQL_UNSUPPORTED', 'query parameters and server variables ($1, ?, @@x) are not supported', {
        ...at(n, sql),
        hint: "write the value as a literal, or read a session variable with current_setting('provisa.<var>')",
      });
    }
    if (FORBIDDEN_NODE.test(t)) {
      throw new ShoalError('SQL_NOT_SELECT', `'${t}' is not allowed anywhere in a query`, {
        ...at(n, sql),
        hint: 'shoal is read-only: data-changing statements, parameters and session commands are rejected',
      });
    }
    if (!ALLOWED_NODES.has(t)) {
      throw new ShoalError('SQL_UNSUPPORTED', `the construct '${t}' is not supported`, {
        ...at(n, sql),
        hint: 'rewrite the query with standard SELECT constructs',
      });
    }
    if ((t === 'function' || t === 'aggregate_function') && !ALLOWED_FUNCTIONS.has(String(d.name).toLowerCase())) {
      throw new ShoalError('SQL_FUNCTION_NOT_ALLOWED', `function ${String(d.name)}() is not allowed`, {
        ...at(n, sql, String(d.name)),
        hint: 'only deterministic, side-effect-free functions on the allowlist may be called',
      });
    }
    if (t === 'literal' && !ALLOWED_LITERALS.has(d.literal_type)) {
      throw new ShoalError('SQL_LITERAL_NOT_ALLOWED', `${String(d.literal_type).replace(/_/g, ' ')} literals are not accepted`, {
        ...at(n, sql),
        hint: "write the value as a standard string literal 'like this' (double a quote to escape it)",
      });
    }
    if ((t === 'table' && d.table_sample) || (t === 'select' && d.sample)) {
      throw new ShoalError('SQL_UNSUPPORTED', 'TABLESAMPLE is not supported (it is nondeterministic, and would sample the governed rows)', {
        ...at(n, sql),
        hint: 'filter with a deterministic predicate instead, e.g. WHERE id % 10 = 0',
      });
    }
    if (t === 'table' && (d.catalog && d.schema === null)) {
      throw new ShoalError('SQL_UNKNOWN_TABLE', 'malformed table reference', { ...at(n, sql) });
    }
  }
}
