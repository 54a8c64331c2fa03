import { type Data, type Node, allNodes, dataOf, identName, typeOf } from './ast-node.js';
import type { CatalogColumn } from './catalog.js';

/** A result column of a query: the name PostgreSQL gives it, and its type when known. */
export interface OutputColumn {
  readonly name: string;
  readonly type?: string;
  /**
   * For a `numeric` result whose scale PostgreSQL fixes statically (a column of declared scale,
   * sums and products of those, a cast to numeric(p,s)): the scale its values print with, so a
   * route holding them as doubles (SQLite REAL) prints "1703.00" as PostgreSQL does.
   */
  readonly scale?: number;
}

/** Typed nodes the SDK creates for functions, with the column name PostgreSQL gives a call. */
const FUNCTION_NODE_NAMES: Readonly<Record<string, string>> = {
  null_if: 'nullif', n_tile: 'ntile', trim: 'btrim', str_position: 'strpos', array_func: 'array', date_part: 'date_part',
  logical_and: 'bool_and', logical_or: 'bool_or', interval: 'interval',
};
const FUNCTION_NODES = new Set((
  'count sum avg min max upper lower length coalesce greatest least substring replace position abs round floor ceil power sqrt ln log exp sign ' +
  'date_trunc extract string_agg array_agg row_number rank dense_rank lag lead first_value last_value percent_rank cume_dist stddev ' +
  'stddev_samp stddev_pop variance var_samp var_pop median mode lpad rpad initcap md5 left right strpos regexp_replace split_part concat_ws ' +
  'char_length ltrim rtrim bool_and bool_or nth_value percentile_cont percentile_disc count_if unnest case exists array to_char'
).split(' '));

const CAST_TYPE_NAMES: Readonly<Record<string, string>> = {
  int: 'int4', integer: 'int4', bigint: 'int8', smallint: 'int2', text: 'text', varchar: 'varchar', numeric: 'numeric', decimal: 'numeric',
  date: 'date', timestamp: 'timestamp', boolean: 'bool', double: 'float8', real: 'float4', float: 'float8', char: 'bpchar', interval: 'interval',
  time: 'time', json: 'json', jsonb: 'jsonb', uuid: 'uuid', bytea: 'bytea', int2: 'int2', int4: 'int4', int8: 'int8', float4: 'float4', float8: 'float8',
  bool: 'bool', timestamptz: 'timestamptz', timetz: 'timetz',
};

/** The type name PostgreSQL names a cast of a constant after (`'1'::int` is "int4", `'x'::timestamptz` "timestamptz"). */
function castTypeName(to: Data | undefined): string | undefined {
  const dt = String(to?.data_type ?? '').toLowerCase().replace(/_/g, '');
  if (dt === 'timestamp' && to?.timezone) return 'timestamptz';
  if (dt === 'time' && to?.timezone) return 'timetz';
  if (dt === 'float' && to?.real_spelling) return 'float4';
  if (dt === 'custom') return CAST_TYPE_NAMES[String(to?.name ?? '').toLowerCase()] ?? (to?.name ? String(to.name).toLowerCase() : undefined);
  return CAST_TYPE_NAMES[dt];
}

/** Context for naming: the declared columns of governed subqueries, and CTE definitions by name. */
export interface OutputContext {
  readonly governed: ReadonlyMap<Node, readonly CatalogColumn[]>;
  readonly ctes: ReadonlyMap<string, Data>;
  /** Names fixed before governance rewrote the expressions (see spelled-names.ts). */
  readonly names?: ReadonlyMap<Node, string>;
}

export function collectCtes(stmt: Node): Map<string, Data> {
  const m = new Map<string, Data>();
  for (const [n] of allNodes(stmt)) for (const c of dataOf(n)?.with?.ctes ?? []) m.set(identName(c.alias)!, c);
  return m;
}

/** The column name PostgreSQL derives for an unaliased select-list expression (FigureColname). */
export function pgColumnName(e: Node, ctx?: OutputContext): string {
  const fixed = ctx?.names?.get(e);
  if (fixed !== undefined) return fixed;
  const t = typeOf(e);
  const d = dataOf(e);
  switch (t) {
    case 'literal':
      // typed literals name after their type (DATE '…' is "date"); plain constants have no name
      return d.literal_type === 'date' || d.literal_type === 'timestamp' || d.literal_type === 'time' ? d.literal_type : '?column?';
    case 'column': return identName(d.name)!;
    case 'alias': return identName(d.alias)!;
    case 'function':
    case 'aggregate_function': return String(d.name).toLowerCase();
    case 'window_function': return d.this ? pgColumnName(d.this, ctx) : '?column?';
    case 'paren': return pgColumnName(d.this, ctx);
    case 'cast': {
      const inner = typeOf(d.this);
      if (inner === 'literal' || inner === 'null' || inner === 'boolean') return castTypeName(d.to) ?? '?column?';
      const name = pgColumnName(d.this, ctx);
      return name;
    }
    case 'subquery': {
      const out = ctx ? queryOutputs(d.this, ctx) : undefined;
      return out?.[0]?.name ?? '?column?';
    }
    default:
      if (FUNCTION_NODE_NAMES[t]) return FUNCTION_NODE_NAMES[t];
      if (FUNCTION_NODES.has(t)) return t;
      return '?column?';
  }
}

/** Output columns of a query node (select / set operation / subquery), or undefined when unknown. */
export function queryOutputs(q: Node, ctx: OutputContext): OutputColumn[] | undefined {
  const t = typeOf(q);
  const d = dataOf(q);
  if (t === 'subquery' || t === 'paren') return queryOutputs(d.this, ctx);
  if (t === 'union' || t === 'intersect' || t === 'except') return queryOutputs(d.left, ctx);
  if (t === 'values') {
    // PostgreSQL names VALUES columns column1, column2, …
    const first: Node[] = d.expressions?.[0]?.expressions ?? dataOf(d.expressions?.[0] ?? {})?.expressions ?? [];
    return first.map((_, i) => ({ name: `column${i + 1}` }));
  }
  if (t !== 'select') return undefined;
  const governed = ctx.governed.get(q);
  const sources: { qualifier: string | undefined; cols: OutputColumn[] | undefined; using: string[] }[] = [];
  const add = (n: Node, using: string[] = []) => {
    const nt = typeOf(n);
    const nd = dataOf(n);
    if (nt === 'joined_table') {
      add(nd.left);
      for (const j of nd.joins ?? []) add(j.this, (j.using ?? []).map(identName));
      return;
    }
    const aliases: string[] = (nd?.column_aliases ?? []).map(identName);
    let cols: OutputColumn[] | undefined;
    if (nt === 'subquery') cols = queryOutputs(nd.this, ctx);
    else if (nt === 'table') {
      const cte = ctx.ctes.get(identName(nd.name)!);
      if (cte) {
        const names: string[] = (cte.columns ?? []).map(identName);
        const inner = queryOutputs(cte.this, ctx);
        cols = names.length ? names.map((name, i) => ({ name, ...(inner?.[i]?.type ? { type: inner[i]!.type } : {}) })) : inner;
      }
    } else if (nt === 'values') cols = aliases.map((name) => ({ name }));
    else if (nd?.alias) cols = [{ name: identName(nd.alias)! }];
    else if (nt === 'function') cols = [{ name: String(nd.name).toLowerCase() }]; // FROM f(…) names its column f
    if (cols && aliases.length) cols = cols.map((c, i) => (i < aliases.length ? { name: aliases[i]!, ...(c.type ? { type: c.type } : {}) } : c));
    sources.push({ qualifier: identName(nd?.alias) ?? (nt === 'table' ? identName(nd.name) : undefined), cols, using });
  };
  for (const f of d.from?.expressions ?? []) add(f);
  for (const j of d.joins ?? []) add(j.this, (j.using ?? []).map(identName));
  const typeOfColumn = (name: string, qualifier?: string): string | undefined => {
    if (governed) return governed.find((c) => c.name === name)?.type;
    const cand = sources.filter((s) => qualifier === undefined || s.qualifier === qualifier);
    for (const s of cand) {
      const c = s.cols?.find((x) => x.name === name);
      if (c) return c.type;
    }
    return undefined;
  };
  const out: OutputColumn[] = [];
  for (const e of d.expressions ?? []) {
    const et = typeOf(e);
    const ed = dataOf(e);
    if (et === 'star') {
      const q = identName(ed.table);
      const picked = q === undefined ? sources : sources.filter((s) => s.qualifier === q);
      if (!picked.length || picked.some((s) => !s.cols)) return undefined;
      if (q === undefined) {
        // USING columns appear once, first (PostgreSQL's merged join columns)
        const merged = [...new Set(picked.flatMap((s) => s.using))];
        for (const m of merged) out.push({ name: m, ...withType(picked[0]!.cols!.find((c) => c.name === m)?.type) });
        for (const s of picked) for (const c of s.cols!) if (!merged.includes(c.name)) out.push(c);
      } else for (const c of picked[0]!.cols!) out.push(c);
      continue;
    }
    const name = pgColumnName(e, ctx);
    let inner = et === 'alias' ? ed.this : e;
    while (typeOf(inner) === 'paren') inner = dataOf(inner).this;
    let type: string | undefined;
    let scale: number | undefined;
    if (governed && et === 'alias') type = governed.find((c) => c.name === name)?.type;
    else {
      const colType = (col: Node) => typeOfColumn(identName(dataOf(col).name)!, identName(dataOf(col).table));
      type = expressionType(inner, colType, ctx);
      if (type === 'numeric') scale = decimalScale(inner, colType);
    }
    out.push({ name, ...withType(type), ...(scale !== undefined ? { scale } : {}) });
  }
  return out;
}

const withType = (type: string | undefined) => (type ? { type } : {});

const BOOLEAN_NODES = new Set(['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'and', 'or', 'not', 'exists', 'like', 'i_like', 'in', 'not_in', 'between',
  'is_null', 'is_true', 'is_false', 'similar_to', 'null_safe_eq', 'null_safe_neq', 'regexp_like', 'bool_and', 'bool_or']);
const TEXT_NODES = new Set(['concat', 'upper', 'lower', 'trim', 'ltrim', 'rtrim', 'substring', 'replace', 'lpad', 'rpad', 'initcap', 'md5',
  'left', 'right', 'regexp_replace', 'split_part', 'concat_ws', 'string_agg', 'to_char']);
const TEXT_FUNCTIONS = new Set(['concat', 'concat_ws', 'upper', 'lower', 'substr', 'substring', 'replace', 'btrim', 'ltrim', 'rtrim', 'lpad', 'rpad',
  'initcap', 'md5', 'reverse', 'repeat', 'split_part', 'regexp_replace', 'left', 'right', 'to_char', 'current_setting']);
const BIGINT = new Set(['count', 'count_if', 'row_number', 'rank', 'dense_rank', 'n_tile', 'length', 'char_length', 'strpos', 'position']);
const CAST_NAMES: Readonly<Record<string, string>> = { int: 'integer', integer: 'integer', bigint: 'bigint', smallint: 'smallint', text: 'text',
  varchar: 'varchar', char: 'varchar', numeric: 'numeric', decimal: 'numeric', date: 'date', timestamp: 'timestamp', boolean: 'boolean',
  double: 'double', real: 'real', float: 'double' };

/**
 * A best-effort PostgreSQL type for a result expression; undefined when not known. Only a column
 * and a cast keep a typmod (`numeric(12,2)`): in PostgreSQL every operator, function and
 * aggregate over them returns plain `numeric`.
 */
function expressionType(e: Node, column: (col: Node) => string | undefined, ctx: OutputContext): string | undefined {
  const t = expressionTypeWithTypmod(e, column, ctx);
  const k = typeOf(e);
  return t !== undefined && k !== 'column' && k !== 'cast' && k !== 'paren' && /^(numeric|decimal)\s*\(/i.test(t) ? 'numeric' : t;
}

function expressionTypeWithTypmod(e: Node, column: (col: Node) => string | undefined, ctx: OutputContext): string | undefined {
  const t = typeOf(e);
  const d = dataOf(e) ?? {};
  const arg = (x: Node | undefined) => (x ? expressionType(x, column, ctx) : undefined);
  const numeric = (x: string | undefined) => x !== undefined && /^(integer|bigint|smallint|int|numeric|decimal|double|real)/.test(x);
  if (t === 'column') return column(e);
  if (t === 'paren') return arg(d.this);
  if (t === 'literal') {
    if (d.literal_type === 'string') return 'text';
    if (d.literal_type === 'number') return /^\d+$/.test(String(d.value)) ? 'integer' : 'numeric';
    return d.literal_type;
  }
  if (t === 'boolean' || BOOLEAN_NODES.has(t)) return 'boolean';
  if (t === 'cast') {
    const dt = String(d.to?.data_type ?? '').toLowerCase().replace(/_/g, '');
    if (dt === 'timestamp' && d.to?.timezone) return 'timestamptz';
    if (dt === 'float' && d.to?.real_spelling) return 'real';
    // numeric(p,s) keeps its declared precision and scale (the scale is what the values print with)
    if ((dt === 'decimal' || dt === 'numeric') && d.to?.precision != null) return `numeric(${d.to.precision},${d.to.scale ?? 0})`;
    return CAST_NAMES[dt];
  }
  if (TEXT_NODES.has(t)) return 'text';
  if (BIGINT.has(t)) return 'bigint';
  if (t === 'sum') {
    const a = arg(d.this);
    return a === 'integer' || a === 'smallint' ? 'bigint' : numeric(a) ? 'numeric' : undefined;
  }
  if (t === 'avg') return numeric(arg(d.this)) ? 'numeric' : undefined;
  if (t === 'min' || t === 'max' || t === 'coalesce' || t === 'null_if' || t === 'greatest' || t === 'least') {
    return arg(d.this ?? d.expressions?.[0] ?? d.args?.[0]);
  }
  if (t === 'window_function') return arg(d.this);
  if (t === 'neg') return arg(d.this);
  if (t === 'add' || t === 'sub' || t === 'mul' || t === 'div' || t === 'mod') {
    const [l, r] = [arg(d.left), arg(d.right)];
    if (l === 'integer' && r === 'integer') return 'integer';
    if (numeric(l) && numeric(r)) return l === r ? l : 'numeric';
    return undefined;
  }
  if (t === 'subquery') return queryOutputs(d.this, ctx)?.[0]?.type;
  if (t === 'function' || t === 'aggregate_function') {
    const name = String(d.name).toLowerCase();
    if (TEXT_FUNCTIONS.has(name)) return 'text';
    if (name === 'count') return 'bigint';
  }
  return undefined;
}

const typmodScale = (type: string | undefined): number | undefined => {
  if (type === undefined) return undefined;
  if (/^(integer|bigint|smallint|int|int2|int4|int8)$/i.test(type)) return 0;
  const m = /^(?:numeric|decimal)\s*\(\s*\d+\s*(?:,\s*(\d+)\s*)?\)$/i.exec(type);
  return m ? Number(m[1] ?? '0') : undefined;
};

/**
 * The scale PostgreSQL gives a numeric expression's values when it is static: a column's declared
 * scale, an integer's 0, a literal's digits; + and - take the larger, * the sum, unary minus and
 * sum/min/max keep it, round(x, n) is n. Undefined when it depends on the values (avg, /, coalesce…).
 */
function decimalScale(e: Node, column: (col: Node) => string | undefined): number | undefined {
  const t = typeOf(e);
  const d = dataOf(e) ?? {};
  const rec = (x: Node | undefined) => (x ? decimalScale(x, column) : undefined);
  switch (t) {
    case 'column': return typmodScale(column(e));
    case 'paren': case 'neg': case 'sum': case 'min': case 'max': return rec(d.this);
    case 'literal': {
      if (d.literal_type !== 'number' || !/^\d+(\.\d*)?$/.test(String(d.value))) return undefined;
      return (String(d.value).split('.')[1] ?? '').length;
    }
    case 'cast': {
      const dt = String(d.to?.data_type ?? '').toLowerCase();
      if ((dt === 'decimal' || dt === 'numeric') && d.to?.precision != null) return Number(d.to.scale ?? 0);
      return /^(int|integer|bigint|smallint)$/.test(dt) ? 0 : undefined;
    }
    case 'add': case 'sub': case 'mul': {
      const [l, r] = [rec(d.left), rec(d.right)];
      if (l === undefined || r === undefined) return undefined;
      return t === 'mul' ? l + r : Math.max(l, r);
    }
    case 'function': {
      if (String(d.name).toLowerCase() !== 'round') return undefined;
      const n: Node | undefined = d.args?.[1];
      if (!n) return 0;
      return typeOf(n) === 'literal' && /^\d+$/.test(String(dataOf(n).value)) ? Number(dataOf(n).value) : undefined;
    }
    default: return undefined;
  }
}
