/**
 * The GraphQL schema of one role at one registry epoch, generated from the catalog as that role
 * sees it (role-graph.ts): a hidden table or column is not in it, so introspection shows nothing
 * the role may not read and a query naming it fails validation as a field that does not exist.
 *
 * Per table `<domain>_<table>`: a root field with `where`, `orderBy`, `first`, `after` returning
 * `{nodes, pageInfo {hasNextPage, endCursor}}`; a root field `<…>_aggregate(where)` with `count`
 * and `sum`/`avg`/`min`/`max` of numeric columns; relationships as fields of the row type (to-one
 * an object, to-many a list with `where`, `orderBy`, `limit`). Each root field is one statement
 * and each relationship one statement per level for all parent rows (batch-loader.ts).
 */
import {
  GraphQLBoolean,
  GraphQLEnumType,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  GraphQLSchema,
  GraphQLString,
  GraphQLInt,
  type GraphQLScalarType,
} from 'graphql';
import { ShoalError } from '../../errors.js';
import type { RoleGraphTable, RoleRelationship } from '../../sql/role-graph.js';
import { BatchLoader } from './batch-loader.js';
import { type ColumnKind, GraphQLBigInt, GraphQLDecimal, NUMERIC_KINDS, columnKind, scalarOf } from './column-kind.js';
import { GRAPHQL_BOUNDS, pageSize } from './graphql-bounds.js';
import type { GraphContext, GraphRow } from './graphql-context.js';
import { type AggregateItem, type BoolExp, type Direction, type FieldColumn, Params, RANK, aggregateSql, batchSql, orderByClause, pageSql, wherePredicate } from './graphql-sql.js';
import { joinKey } from './join-key.js';
import { subfields } from './selection.js';

interface ColumnField extends FieldColumn {
  readonly field: string;
  readonly kind: ColumnKind;
}

/** One table's names in the schema. */
interface TableNode {
  readonly table: RoleGraphTable;
  readonly typeName: string;
  /** Column fields by GraphQL field name. */
  readonly columns: ReadonlyMap<string, ColumnField>;
  /** Relationship fields by GraphQL field name. */
  readonly relationships: Map<string, RoleRelationship>;
  readonly byColumn: ReadonlyMap<string, ColumnField>;
}

const RESERVED_FIELDS = new Set(['and', 'or', 'not']);

/** A GraphQL name for any identifier: letters, digits, `_`; never the reserved `__` prefix. */
function graphqlName(raw: string): string {
  let n = raw.replace(/[^_a-zA-Z0-9]/g, '_');
  if (!/^[_a-zA-Z]/.test(n)) n = `_${n}`;
  if (n.startsWith('__')) n = `x${n}`;
  return n;
}

/** Types generated per table: `<type><suffix>`. */
const TYPE_SUFFIXES = ['_bool_exp', '_order_by', '_connection', '_aggregate', '_sum', '_avg', '_min', '_max'];

/** Type names the schema has besides the tables' (scalars and `<scalar>_comparison` inputs). */
const FIXED_TYPES = ['Query', 'PageInfo', 'OrderDirection', 'String', 'Int', 'Float', 'Boolean', 'ID', 'BigInt', 'Decimal', ...['String', 'Value', 'Int', 'BigInt', 'Decimal', 'Float', 'Boolean'].map((s) => `${s}_comparison`)];

/** `base`, or `base_2`, `base_3`…: the first whose names with each of `suffixes` are all free (and now taken). */
function unique(base: string, taken: Set<string>, suffixes: readonly string[] = ['']): string {
  let n = base;
  for (let i = 2; suffixes.some((s) => taken.has(`${n}${s}`)); i++) n = `${base}_${i}`;
  for (const s of suffixes) taken.add(`${n}${s}`);
  return n;
}

const OrderDirection = new GraphQLEnumType({
  name: 'OrderDirection',
  description: 'ASC sorts NULLs last, DESC first (as PostgreSQL does).',
  values: { ASC: { value: 'ASC' }, DESC: { value: 'DESC' } },
});

const PageInfo = new GraphQLObjectType({
  name: 'PageInfo',
  fields: {
    hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean) },
    endCursor: { type: GraphQLString, description: 'Pass as `after` for the next page; opaque.' },
  },
});

/** `eq … isNull` for one scalar; text columns also get `like`. */
function comparisonTypes(): (kind: ColumnKind) => GraphQLInputObjectType {
  const made = new Map<string, GraphQLInputObjectType>();
  return (kind) => {
    const scalar = scalarOf(kind);
    const name = kind === 'text' ? 'String_comparison' : kind === 'other' ? 'Value_comparison' : `${scalar.name}_comparison`;
    let t = made.get(name);
    if (!t) {
      const fields: GraphQLInputFieldConfigMap = {};
      const ops = kind === 'boolean' ? ['eq', 'neq'] : ['eq', 'neq', 'lt', 'lte', 'gt', 'gte'];
      for (const op of ops) fields[op] = { type: scalar };
      fields.in = { type: new GraphQLList(new GraphQLNonNull(scalar)) };
      if (kind === 'text') fields.like = { type: GraphQLString, description: 'SQL LIKE: `%` any run, `_` one character' };
      fields.isNull = { type: GraphQLBoolean };
      t = new GraphQLInputObjectType({ name, fields });
      made.set(name, t);
    }
    return t;
  };
}

const CURSOR_PREFIX = 'o:';

function encodeCursor(offset: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${offset}`).toString('base64url');
}

function decodeCursor(after: string | null | undefined): number {
  if (after === null || after === undefined) return 0;
  const text = Buffer.from(after, 'base64url').toString('utf8');
  const n = text.startsWith(CURSOR_PREFIX) ? Number(text.slice(CURSOR_PREFIX.length)) : NaN;
  if (!Number.isSafeInteger(n) || n < 0) throw new ShoalError('GRAPHQL_INVALID', 'after: not a cursor this endpoint gave', { hint: 'pass pageInfo.endCursor of the previous page' });
  return n;
}

/** A statement reached the role's row cap: its rows may be cut short, so they are not answered. */
function rowCapReached(cap: number): ShoalError {
  return new ShoalError('GRAPHQL_ROW_CAP', `a relationship read ${cap} rows, the role's row cap, so some of its rows may be missing`, {
    hint: `ask for fewer related rows (a smaller limit or where), or fewer parents (a smaller first); the role's max_rows sets the cap`,
  });
}

/** Parents per batched statement: 100, fewer when `perParent` rows each could reach the role's row cap. */
function parentsPerStatement(cap: number | undefined, perParent: number): number {
  return cap === undefined ? 100 : Math.max(1, Math.min(100, Math.floor((cap - 1) / Math.max(1, perParent))));
}

function orderItems(node: TableNode, orderBy: readonly Readonly<Record<string, unknown>>[] | null | undefined): [string, Direction][] {
  return (orderBy ?? []).map((item) => {
    const set = Object.entries(item).filter(([, d]) => d !== null && d !== undefined);
    if (set.length !== 1) throw new ShoalError('GRAPHQL_INVALID', `orderBy: each item names exactly one field (got ${set.length})`, { hint: 'write orderBy: [{a: ASC}, {b: DESC}]' });
    return [node.columns.get(set[0]![0])!.column, set[0]![1] as Direction];
  });
}

/** The columns a row selection reads: its column fields and the join columns of its relationship fields. */
function columnsRead(node: TableNode, fields: ReturnType<typeof subfields>, extra: readonly string[] = []): string[] {
  const out = new Set<string>(extra);
  for (const f of fields) {
    const c = node.columns.get(f.name.value);
    if (c) out.add(c.column);
    const r = node.relationships.get(f.name.value);
    if (r) out.add(r.column);
  }
  // a selection of only __typename still needs a row per row
  if (out.size === 0) out.add(node.table.key[0] ?? node.table.columns[0]!.name);
  return [...out];
}

/** Build the schema; `tables` is the role's graph (role-graph.ts). */
export function buildGraphSchema(tables: readonly RoleGraphTable[]): GraphQLSchema {
  const typeNames = new Set<string>(FIXED_TYPES);
  const rootNames = new Set<string>();
  const nodes = new Map<string, TableNode>();
  for (const t of tables) {
    // `a_b.c`'s generated `a_b_c_sum` is then never the type of a table `a.b_c_sum`
    const typeName = unique(graphqlName(`${t.schema}_${t.name}`), typeNames, ['', ...TYPE_SUFFIXES]);
    const taken = new Set<string>(['__typename', ...RESERVED_FIELDS]);
    const columns = new Map<string, ColumnField>();
    const byColumn = new Map<string, ColumnField>();
    for (const c of t.columns) {
      const field = unique(graphqlName(c.name), taken);
      const f: ColumnField = { field, column: c.name, declared: c.type, kind: columnKind(c.type) };
      columns.set(field, f);
      byColumn.set(c.name, f);
    }
    const relationships = new Map<string, RoleRelationship>();
    for (const r of t.relationships) relationships.set(unique(graphqlName(r.name), taken), r);
    nodes.set(t.table, { table: t, typeName, columns, relationships, byColumn });
  }
  const comparison = comparisonTypes();
  const objects = new Map<string, GraphQLObjectType>();
  const boolExps = new Map<string, GraphQLInputObjectType>();
  const orderBys = new Map<string, GraphQLInputObjectType>();

  for (const node of nodes.values()) {
    const boolExp: GraphQLInputObjectType = new GraphQLInputObjectType({
      name: `${node.typeName}_bool_exp`,
      fields: () => {
        const f: GraphQLInputFieldConfigMap = {
          and: { type: new GraphQLList(new GraphQLNonNull(boolExp)) },
          or: { type: new GraphQLList(new GraphQLNonNull(boolExp)) },
          not: { type: boolExp },
        };
        for (const c of node.columns.values()) f[c.field] = { type: comparison(c.kind) };
        return f;
      },
    });
    boolExps.set(node.table.table, boolExp);
    const orderFields: GraphQLInputFieldConfigMap = {};
    for (const c of node.columns.values()) orderFields[c.field] = { type: OrderDirection };
    orderBys.set(node.table.table, new GraphQLInputObjectType({ name: `${node.typeName}_order_by`, description: 'One field per item; items sort in list order.', fields: orderFields }));
  }

  const listArgs = (node: TableNode) => ({
    where: { type: boolExps.get(node.table.table)! as GraphQLInputType },
    orderBy: { type: new GraphQLList(new GraphQLNonNull(orderBys.get(node.table.table)!)) },
  });

  /** A relationship field: resolved for every parent row of a level by one batched statement. */
  const relationshipField = (node: TableNode, name: string, r: RoleRelationship): GraphQLFieldConfig<GraphRow, GraphContext> => {
    const target = nodes.get(r.target)!;
    const toMany = r.cardinality === 'one-to-many';
    const object = objects.get(r.target)!;
    const targetKey = target.byColumn.get(r.targetColumn)!;
    const numericKey = NUMERIC_KINDS.has(targetKey.kind);
    return {
      type: toMany ? new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(object))) : object,
      ...(toMany ? { args: { ...listArgs(target), limit: { type: GraphQLInt, description: `Rows per parent (default ${GRAPHQL_BOUNDS.defaultPageSize}, at most ${GRAPHQL_BOUNDS.maxPageSize}).` } } } : {}),
      resolve: async (row, args: { where?: BoolExp; orderBy?: Record<string, unknown>[]; limit?: number }, ctx, info) => {
        const value = row[r.column];
        if (value === null || value === undefined) return toMany ? [] : null;
        const columns = columnsRead(target, subfields(info.fragments, info.fieldNodes), [r.targetColumn]);
        const perKey = toMany ? { orderBy: orderByClause(orderItems(target, args.orderBy), target.table), limit: pageSize(args.limit, 'limit') } : undefined;
        const batchKey = JSON.stringify([node.typeName, name, args, columns]);
        const loader = ctx.batch(batchKey, () => new BatchLoader<readonly GraphRow[]>(async (keys) => {
          const found = new Map<string, GraphRow[]>();
          // IN lists of at most 100 values: far inside the SQL size limits, still few statements;
          // fewer when the role's row cap could cut a statement short (a to-one expects a row a key)
          const step = parentsPerStatement(ctx.rowCap, perKey?.limit ?? 1);
          for (let i = 0; i < keys.length; i += step) {
            const params = new Params();
            const refs = keys.slice(i, i + step).map((k) => params.bind(k, targetKey.declared));
            const predicate = wherePredicate(args.where, target.columns, params);
            const sql = batchSql(target.table, columns, r.targetColumn, refs, predicate, perKey);
            const children = await ctx.rows(sql, params.vars, perKey ? [...columns, RANK] : columns);
            if (ctx.rowCap !== undefined && children.length >= ctx.rowCap) throw rowCapReached(ctx.rowCap);
            for (const child of children) {
              const k = joinKey(child[r.targetColumn], numericKey);
              const list = found.get(k);
              if (list) list.push(child);
              else found.set(k, [child]);
            }
          }
          return found;
        }, [], (related, callers) => ctx.deliver(callers * (toMany ? related.length : Math.min(1, related.length)))));
        const related = await loader.load(joinKey(value, numericKey));
        return toMany ? related : (related[0] ?? null);
      },
    };
  };

  for (const node of nodes.values()) {
    objects.set(node.table.table, new GraphQLObjectType<GraphRow, GraphContext>({
      name: node.typeName,
      description: `${node.table.table}, as the role sees it${node.table.columns.some((c) => c.masked) ? ' (masked columns hold masked values)' : ''}.`,
      fields: () => {
        const f: GraphQLFieldConfigMap<GraphRow, GraphContext> = {};
        for (const c of node.columns.values()) {
          f[c.field] = { type: scalarOf(c.kind), resolve: (row) => row[c.column] };
        }
        for (const [name, r] of node.relationships) f[name] = relationshipField(node, name, r);
        return f;
      },
    }));
  }

  const aggregateType = (node: TableNode): GraphQLObjectType => {
    const numeric = [...node.columns.values()].filter((c) => NUMERIC_KINDS.has(c.kind));
    const fieldsOf = (fn: string, typeOf: (c: ColumnField) => GraphQLOutputType): GraphQLObjectType =>
      new GraphQLObjectType({ name: `${node.typeName}_${fn}`, fields: Object.fromEntries(numeric.map((c) => [c.field, { type: typeOf(c) }])) });
    const f: GraphQLFieldConfigMap<unknown, unknown> = { count: { type: new GraphQLNonNull(GraphQLBigInt), description: 'Rows matching `where` that the role may read.' } };
    if (numeric.length > 0) {
      f.sum = { type: fieldsOf('sum', (c) => (c.kind === 'float' ? scalarOf('float') : c.kind === 'decimal' ? GraphQLDecimal : GraphQLBigInt)) };
      f.avg = { type: fieldsOf('avg', (c) => (c.kind === 'float' ? scalarOf('float') : GraphQLDecimal)) };
      f.min = { type: fieldsOf('min', (c) => scalarOf(c.kind)) };
      f.max = { type: fieldsOf('max', (c) => scalarOf(c.kind)) };
    }
    return new GraphQLObjectType({ name: `${node.typeName}_aggregate`, fields: f });
  };

  const query: GraphQLFieldConfigMap<unknown, GraphContext> = {};
  for (const node of nodes.values()) {
    const { table } = node;
    const connection = new GraphQLObjectType({
      name: `${node.typeName}_connection`,
      fields: { nodes: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(objects.get(table.table)!))) }, pageInfo: { type: new GraphQLNonNull(PageInfo) } },
    });
    query[unique(node.typeName, rootNames)] = {
      type: new GraphQLNonNull(connection),
      description: `Rows of ${table.table}: one page of \`first\` rows after the cursor \`after\`, in \`orderBy\` order (ties broken by the primary key).`,
      args: { ...listArgs(node), first: { type: GraphQLInt, description: `Page size (default ${GRAPHQL_BOUNDS.defaultPageSize}, at most ${GRAPHQL_BOUNDS.maxPageSize}).` }, after: { type: GraphQLString } },
      resolve: async (_root, args: { where?: BoolExp; orderBy?: Record<string, unknown>[]; first?: number; after?: string }, ctx, info) => {
        // the page asks one row more than it answers (hasNextPage): under the role's row cap, a
        // shorter page whose hasNextPage and endCursor still tell the truth
        const cap = ctx.rowCap;
        const first = cap !== undefined ? Math.min(pageSize(args.first, 'first'), cap - 1) : pageSize(args.first, 'first');
        if (first < 1 && args.first !== 0) throw new ShoalError('GRAPHQL_ROW_CAP', `the role reads at most ${cap} row a statement: too few to page`, { hint: "use POST /data/sql, or ask the operator to raise the role's max_rows" });
        const offset = decodeCursor(args.after);
        const rowFields = subfields(info.fragments, subfields(info.fragments, info.fieldNodes).filter((f) => f.name.value === 'nodes'));
        const columns = columnsRead(node, rowFields);
        const params = new Params();
        const predicate = wherePredicate(args.where, node.columns, params);
        const sql = pageSql(table, columns, predicate, orderByClause(orderItems(node, args.orderBy), table), first + 1, offset);
        const rows = await ctx.rows(sql, params.vars, columns);
        const page = rows.slice(0, first);
        ctx.deliver(page.length);
        return { nodes: page, pageInfo: { hasNextPage: rows.length > first, endCursor: page.length > 0 ? encodeCursor(offset + page.length) : (args.after ?? null) } };
      },
    };
    query[unique(`${node.typeName}_aggregate`, rootNames)] = {
      type: new GraphQLNonNull(aggregateType(node)),
      args: { where: listArgs(node).where },
      resolve: async (_root, args: { where?: BoolExp }, ctx, info) => {
        const items: AggregateItem[] = [];
        const slots: [string, string | undefined][] = [];
        for (const f of subfields(info.fragments, info.fieldNodes)) {
          const fn = f.name.value;
          if (fn === 'count' && !slots.some(([s]) => s === 'count')) {
            items.push({ fn: 'count' });
            slots.push(['count', undefined]);
          } else if (fn === 'sum' || fn === 'avg' || fn === 'min' || fn === 'max') {
            for (const s of subfields(info.fragments, [f])) {
              const c = node.columns.get(s.name.value);
              if (!c || slots.some(([a, b]) => a === fn && b === c.field)) continue;
              items.push({ fn, column: c.column });
              slots.push([fn, c.field]);
            }
          }
        }
        const params = new Params();
        const sql = aggregateSql(table, items, wherePredicate(args.where, node.columns, params));
        const names = slots.length > 0 ? slots.map((_, i) => `a${i}`) : ['a0'];
        const row = (await ctx.rows(sql, params.vars, names))[0] ?? {};
        const out: Record<string, unknown> = { count: null };
        slots.forEach(([fn, field], i) => {
          const v = row[`a${i}`] ?? null;
          if (field === undefined) out.count = v;
          else ((out[fn] ??= {}) as Record<string, unknown>)[field] = v;
        });
        for (const fn of ['sum', 'avg', 'min', 'max']) out[fn] ??= {};
        return out;
      },
    };
  }
  if (Object.keys(query).length === 0) {
    // a role that reads no table still gets a valid (empty) schema
    query._empty = { type: GraphQLBoolean, description: 'This role may read no table.', resolve: () => null };
  }
  return new GraphQLSchema({ query: new GraphQLObjectType({ name: 'Query', fields: query }), types: [GraphQLBigInt, GraphQLDecimal] as GraphQLScalarType[] });
}
