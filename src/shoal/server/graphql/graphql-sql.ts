/**
 * GraphQL arguments → the SQL text `/data/sql` would accept, over the role's own table names.
 *
 * No value a client sent is written into the text. Each one becomes a session value
 * `provisa.graphql_<n>` and the text reads it as `CAST(current_setting('provisa.graphql_<n>') AS
 * <declared type>)`: the planner puts session values into the parsed query as literal nodes, so a
 * value never passes through SQL text as written here, and it cannot change the statement's shape.
 * Only identifiers from the role's catalog (quoted) and integers this module computes (LIMIT,
 * OFFSET) are written into the text. The text then takes the one governed path (RLS, masks, row
 * caps, deadlines, audit) like any client's SQL.
 */
import { ShoalError } from '../../errors.js';
import type { RoleGraphTable } from '../../sql/role-graph.js';
import { castTypeOf, type ColumnKind, columnKind } from './column-kind.js';
import { GRAPHQL_BOUNDS } from './graphql-bounds.js';

/** Session variables a GraphQL query's values travel in; identities may not set these. */
export const GRAPHQL_VAR_PREFIX = 'provisa.graphql_';

export const quoteName = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** The relation a table is queried by: `"<domain>"."<name>"`. */
export const relationOf = (t: RoleGraphTable): string => `${quoteName(t.schema)}.${quoteName(t.name)}`;

/** The values of one statement, collected as it is compiled. */
export class Params {
  readonly vars: Record<string, string> = {};
  private n = 0;

  /** A reference to `value`, typed as the column it is compared with. */
  bind(value: string, declared: string): string {
    const name = `${GRAPHQL_VAR_PREFIX}${++this.n}`;
    this.vars[name] = value;
    const read = `current_setting('${name}')`;
    const cast = castTypeOf(declared);
    return cast === undefined ? read : `CAST(${read} AS ${cast})`;
  }
}

/** A comparison on one column: `{eq, neq, lt, lte, gt, gte, in, like, isNull}`. */
export type Comparison = Readonly<Record<string, unknown>>;

/** A `where` argument: column comparisons and `and`/`or`/`not`, ANDed. */
export type BoolExp = Readonly<Record<string, unknown>>;

const OPERATORS: Readonly<Record<string, string>> = { eq: '=', neq: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=', like: 'LIKE' };

/** Where a GraphQL field name leads in a table: its column and declared type. */
export interface FieldColumn {
  readonly column: string;
  readonly declared: string;
}

const valueText = (v: unknown): string => (typeof v === 'boolean' ? (v ? 'true' : 'false') : String(v));

/**
 * A null operand, or a comparison with none (`{eq: $v}` with `$v` unset arrives as `{}`): refused,
 * never read as "no filter", which would answer every row.
 */
function noValue(what: string): ShoalError {
  return new ShoalError('GRAPHQL_INVALID', `where: ${what} has no value (null, or a variable the request did not set)`, {
    hint: 'set the variable, leave the filter out, or ask for NULLs with {isNull: true}',
  });
}

/** The predicate of a `where` value (`nesting` and/or/not levels down), or undefined when it constrains nothing. */
export function wherePredicate(where: BoolExp | null | undefined, columns: ReadonlyMap<string, FieldColumn>, params: Params, nesting = 0): string | undefined {
  if (where === null || where === undefined) return undefined;
  if (nesting > GRAPHQL_BOUNDS.maxWhereDepth) {
    throw new ShoalError('GRAPHQL_TOO_COMPLEX', `where: and/or/not nest more than ${GRAPHQL_BOUNDS.maxWhereDepth} deep`, { hint: 'flatten the filter: several fields in one object are ANDed, and in: [..] replaces a chain of or' });
  }
  const parts: string[] = [];
  for (const [field, value] of Object.entries(where)) {
    if (value === undefined) continue;
    if (value === null) throw noValue(field);
    if (field === 'and' || field === 'or') {
      const items = (value as BoolExp[]).map((w) => wherePredicate(w, columns, params, nesting + 1) ?? 'TRUE');
      parts.push(items.length === 0 ? (field === 'and' ? 'TRUE' : 'FALSE') : `(${items.join(field === 'and' ? ' AND ' : ' OR ')})`);
      continue;
    }
    if (field === 'not') {
      const inner = wherePredicate(value as BoolExp, columns, params, nesting + 1);
      if (inner !== undefined) parts.push(`NOT (${inner})`);
      continue;
    }
    const col = columns.get(field);
    if (!col) throw new ShoalError('GRAPHQL_INVALID', `unknown filter field "${field}"`, { hint: 'filter on the fields the type lists' });
    const name = quoteName(col.column);
    const ops = Object.entries(value as Comparison).filter(([, arg]) => arg !== undefined);
    if (ops.length === 0) throw noValue(field);
    for (const [op, arg] of ops) {
      if (arg === null) throw noValue(`${field}.${op}`);
      if (op === 'isNull') parts.push(`${name} IS ${arg === true ? '' : 'NOT '}NULL`);
      else if (op === 'in') {
        const list = arg as unknown[];
        parts.push(list.length === 0 ? 'FALSE' : `${name} IN (${list.map((v) => params.bind(valueText(v), col.declared)).join(', ')})`);
      } else {
        const sqlOp = OPERATORS[op];
        if (!sqlOp) throw new ShoalError('GRAPHQL_INVALID', `unknown comparison "${op}"`, { hint: 'use eq, neq, lt, lte, gt, gte, in, like or isNull' });
        // LIKE compares text with the pattern as written: never cast the pattern to the column's type
        parts.push(`${name} ${sqlOp} ${params.bind(valueText(arg), op === 'like' ? 'varchar' : col.declared)}`);
      }
    }
  }
  return parts.length === 0 ? undefined : parts.join(' AND ');
}

export type Direction = 'ASC' | 'DESC';

/** Kinds a tie-breaker may sort by (arrays, JSON and blobs may not sort on every route). */
const SORTABLE: ReadonlySet<ColumnKind> = new Set(['int', 'bigint', 'decimal', 'float', 'boolean', 'text']);

/**
 * The ORDER BY of a page: the client's items, then tie-breakers so the order is total and pages
 * are stable — the table's visible primary key, or else every visible sortable column. NULLs
 * sort as PostgreSQL sorts them, on every route.
 */
export function orderByClause(items: readonly (readonly [string, Direction])[], table: RoleGraphTable): string {
  const seen = new Set<string>();
  const out: string[] = [];
  const add = (column: string, dir: Direction): void => {
    if (seen.has(column)) return;
    seen.add(column);
    out.push(`${quoteName(column)} ${dir} NULLS ${dir === 'ASC' ? 'LAST' : 'FIRST'}`);
  };
  for (const [c, d] of items) add(c, d);
  const ties = table.key.length > 0 ? table.key : table.columns.filter((c) => SORTABLE.has(columnKind(c.type))).map((c) => c.name);
  for (const c of ties) add(c, 'ASC');
  return out.join(', ');
}

/** `SELECT cols FROM t [WHERE …] ORDER BY … LIMIT n OFFSET o`: one page of a root field. */
export function pageSql(table: RoleGraphTable, columns: readonly string[], predicate: string | undefined, orderBy: string, limit: number, offset: number): string {
  return `SELECT ${columns.map(quoteName).join(', ')} FROM ${relationOf(table)}${predicate ? ` WHERE ${predicate}` : ''} ORDER BY ${orderBy} LIMIT ${limit} OFFSET ${offset}`;
}

/** Name of the rank column of a batched to-many statement (never a field: it is not in any type). */
export const RANK = '__shoal_rank';

/**
 * The rows of `table` whose `keyColumn` is one of `keys`, for a batch of parents: to-one reads
 * them all; to-many keeps `limit` per key in `orderBy` order (a window, so one statement serves
 * every parent of the batch).
 */
export function batchSql(table: RoleGraphTable, columns: readonly string[], keyColumn: string, keyRefs: readonly string[], predicate: string | undefined, perKey?: { readonly orderBy: string; readonly limit: number }): string {
  const where = `${quoteName(keyColumn)} IN (${keyRefs.join(', ')})${predicate ? ` AND (${predicate})` : ''}`;
  const cols = columns.map(quoteName).join(', ');
  if (!perKey) return `SELECT ${cols} FROM ${relationOf(table)} WHERE ${where}`;
  const inner = `SELECT ${cols}, row_number() OVER (PARTITION BY ${quoteName(keyColumn)} ORDER BY ${perKey.orderBy}) AS ${quoteName(RANK)} FROM ${relationOf(table)} WHERE ${where}`;
  return `SELECT ${cols}, ${quoteName(RANK)} FROM (${inner}) AS ranked WHERE ${quoteName(RANK)} <= ${perKey.limit} ORDER BY ${quoteName(RANK)}`;
}

/** An aggregate a client asked for: `count`, or a function over one column. */
export interface AggregateItem {
  readonly fn: 'count' | 'sum' | 'avg' | 'min' | 'max';
  readonly column?: string;
}

export function aggregateSql(table: RoleGraphTable, items: readonly AggregateItem[], predicate: string | undefined): string {
  const exprs = items.map((i) => (i.column === undefined ? 'count(*)' : `${i.fn}(${quoteName(i.column)})`));
  return `SELECT ${exprs.length > 0 ? exprs.join(', ') : 'count(*)'} FROM ${relationOf(table)}${predicate ? ` WHERE ${predicate}` : ''}`;
}
