import { type Data, type Node, allNodes, dataOf, identName, typeOf } from './ast-node.js';
import type { CatalogColumn } from './catalog.js';

/** A result column of a query: the name PostgreSQL gives it, and its type when known. */
export interface OutputColumn {
  readonly name: string;
  readonly type?: string;
}

/** Typed nodes the SDK creates for functions, with the column name PostgreSQL gives a call. */
const FUNCTION_NODE_NAMES: Readonly<Record<string, string>> = {
  null_if: 'nullif', n_tile: 'ntile', trim: 'btrim', str_position: 'strpos', array_func: 'array', date_part: 'date_part',
};
const FUNCTION_NODES = new Set((
  'count sum avg min max upper lower length coalesce greatest least substring replace position abs round floor ceil power sqrt ln log exp sign ' +
  'date_trunc extract string_agg array_agg row_number rank dense_rank lag lead first_value last_value percent_rank cume_dist stddev ' +
  'stddev_samp stddev_pop variance var_samp var_pop median mode lpad rpad initcap md5 left right strpos regexp_replace split_part concat_ws ' +
  'char_length ltrim rtrim bool_and bool_or nth_value percentile_cont percentile_disc count_if unnest case exists array to_char'
).split(' '));

const CAST_TYPE_NAMES: Readonly<Record<string, string>> = {
  int: 'int4', integer: 'int4', bigint: 'int8', smallint: 'int2', text: 'text', varchar: 'varchar', numeric: 'numeric', decimal: 'numeric',
  date: 'date', timestamp: 'timestamp', boolean: 'bool', double: 'float8', real: 'float4',
};

/** Context for naming: the declared columns of governed subqueries, and CTE definitions by name. */
export interface OutputContext {
  readonly governed: ReadonlyMap<Node, readonly CatalogColumn[]>;
  readonly ctes: ReadonlyMap<string, Data>;
}

export function collectCtes(stmt: Node): Map<string, Data> {
  const m = new Map<string, Data>();
  for (const [n] of allNodes(stmt)) for (const c of dataOf(n)?.with?.ctes ?? []) m.set(identName(c.alias)!, c);
  return m;
}

/** The column name PostgreSQL derives for an unaliased select-list expression (FigureColname). */
export function pgColumnName(e: Node, ctx?: OutputContext): string {
  const t = typeOf(e);
  const d = dataOf(e);
  switch (t) {
    case 'column': return identName(d.name)!;
    case 'alias': return identName(d.alias)!;
    case 'function':
    case 'aggregate_function': return String(d.name).toLowerCase();
    case 'window_function': return d.this ? pgColumnName(d.this, ctx) : '?column?';
    case 'paren': return pgColumnName(d.this, ctx);
    case 'cast': {
      const inner = typeOf(d.this);
      if (inner === 'literal' || inner === 'null') {
        const dt = String(d.to?.data_type ?? '').toLowerCase().replace(/_/g, '');
        return CAST_TYPE_NAMES[dt] ?? '?column?';
      }
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
    if (typeOf(inner) === 'column') type = typeOfColumn(identName(dataOf(inner).name)!, identName(dataOf(inner).table));
    else if (governed && et === 'alias') type = governed.find((c) => c.name === name)?.type;
    out.push({ name, ...withType(type) });
  }
  return out;
}

const withType = (type: string | undefined) => (type ? { type } : {});
