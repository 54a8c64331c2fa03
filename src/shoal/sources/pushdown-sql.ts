/**
 * The statement a landing (or the direct route) sends to a source for one table: the projected
 * columns and the pushed-down `column op literal` conjuncts, with every value bound as a
 * parameter and every identifier quoted for the source's dialect.
 */
import type { SimplePredicate } from './simple-predicate.js';
import type { SqlLiteral } from './sql-literal.js';
import { ShoalError } from '../errors.js';
import type { SourceDialect } from './source-driver.js';

export interface SourceSelect {
  readonly schema: string | undefined;
  readonly table: string;
  /** `undefined` selects every column. */
  readonly columns: readonly string[] | undefined;
  readonly predicates: readonly SimplePredicate[];
}

export interface BoundStatement {
  readonly sql: string;
  readonly params: readonly SqlLiteral[];
}

/** Quote an identifier for a dialect (doubling the quote character inside it). */
export function quoteIdent(dialect: SourceDialect, name: string): string {
  if (dialect === 'mysql') return '`' + name.replace(/`/g, '``') + '`';
  return '"' + name.replace(/"/g, '""') + '"';
}

const COMPARISONS = new Set(['=', '<>', '<', '<=', '>', '>=', 'LIKE']);

/** Build the parameterised SELECT for `select` in `dialect`. */
export function sourceSelectSql(dialect: SourceDialect, select: SourceSelect): BoundStatement {
  const q = (n: string): string => quoteIdent(dialect, n);
  const params: SqlLiteral[] = [];
  const placeholder = (v: SqlLiteral): string => {
    params.push(v);
    return dialect === 'postgresql' ? `$${params.length}` : '?';
  };
  const cols = select.columns === undefined ? '*' : select.columns.length === 0 ? '1 AS "_shoal_one"' : select.columns.map(q).join(', ');
  const from = select.schema === undefined ? q(select.table) : `${q(select.schema)}.${q(select.table)}`;
  const conds = select.predicates.map((p) => {
    const col = q(p.column);
    if (p.op === 'IS NULL' || p.op === 'IS NOT NULL') return `${col} ${p.op}`;
    if (p.op === 'IN') {
      if (p.values.length === 0) return '1 = 0';
      return `${col} IN (${p.values.map(placeholder).join(', ')})`;
    }
    if (!('value' in p) || !COMPARISONS.has(p.op)) {
      throw new ShoalError('ENGINE_PUSHDOWN_INVALID', `operator ${String((p as { op: unknown }).op)} cannot be pushed to a source`, {
        where: `pushdown.${p.column}`,
        hint: 'push only =, <>, <, <=, >, >=, LIKE, IN, IS NULL and IS NOT NULL',
      });
    }
    return `${col} ${p.op} ${placeholder(p.value)}`;
  });
  const where = conds.length === 0 ? '' : ` WHERE ${conds.join(' AND ')}`;
  const sql = dialect === 'mysql' && cols.startsWith('1 AS') ? `SELECT 1 AS \`_shoal_one\` FROM ${from}${where}` : `SELECT ${cols} FROM ${from}${where}`;
  return { sql, params };
}
