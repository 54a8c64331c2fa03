import { type Data, type Node, allNodes, dataOf, identName, typeOf } from './ast-node.js';
import type { CatalogTable } from './catalog.js';
import { typeClass } from './column-type.js';
import { isMaskPattern } from './dialects/mask-patterns.js';
import type { MysqlFlavour } from './dialects/mysql.js';

/** A target a query may run on directly, instead of on the engine. */
export type DirectDialect = 'postgres' | 'mysql' | 'sqlite';

/**
 * Constructs certified per direct target by the study's 53-query corpus (§9) on the
 * `generate()` path: a construct is listed only if every corpus query using it gave PostgreSQL's
 * answer on that target, and known silent differences (H2, H6, H7) are left out. Anything else
 * sends the query to the engine, which runs PostgreSQL semantics. PostgreSQL itself runs the
 * whole allowlist (PG→PG matched on every accepted corpus query).
 */
const CORE = (
  'select union intersect except subquery from join where group_by having order_by ordered limit offset with cte ' +
  'alias column identifier table star literal boolean null paren and or not eq neq lt lte gt gte in between is_null is_true is_false exists ' +
  'add sub mul neg case coalesce null_if count sum min max not_in function'
).split(' ');

const SQLITE = new Set([...CORE,
  // window functions (#6, #7 equal on SQLite), integer division and modulo (#35 equal), length in characters (#18)
  'window_function', 'over', 'window_spec', 'row_number', 'rank', 'dense_rank', 'lag', 'lead', 'first_value', 'last_value',
  'div', 'mod', 'abs', 'filter', 'length', 'avg',
]);
// not certified on SQLite: `||` next to arithmetic (#48 precedence), CAST (#13 truncation), LIKE (ASCII
// case-insensitive), dates/intervals, date_trunc/extract, ILIKE, arrays, LATERAL, DISTINCT ON,
// VALUES, generate_series, FETCH FIRST (#44), round (REAL vs numeric), upper/lower (ASCII only)

const MYSQL = new Set([...CORE,
  'window_function', 'over', 'window_spec', 'row_number', 'rank', 'dense_rank', 'mod', 'abs',
]);
// not certified on MySQL/MariaDB: avg (DECIMAL with 4 decimals, div_precision_increment), `||` (H2, read as OR), `/` (#35 gives 3.5), length (bytes, #18),
// concat() (NULL semantics, #37), LIKE and string comparison (case-insensitive collations),
// NULLS FIRST/LAST syntax (#43), FILTER (#11), named windows (#7), intervals, trunc, ILIKE, LATERAL,
// DISTINCT ON, string_agg, FETCH FIRST, arrays, GROUPING SETS, lag/lead defaults

const NODES: Readonly<Record<DirectDialect, ReadonlySet<string> | 'all'>> = { postgres: 'all', sqlite: SQLITE, mysql: MYSQL };

/** Functions (generic function nodes) certified per target, beyond the typed nodes above. */
const FUNCTIONS: Readonly<Record<DirectDialect, ReadonlySet<string> | 'all'>> = {
  postgres: 'all',
  sqlite: new Set(['abs', 'coalesce', 'nullif']),
  mysql: new Set(['abs', 'coalesce', 'nullif']),
};

export type Certification = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Whether every construct of a governed statement is certified for `dialect`. Run on the
 * governed AST, so row filters and masks are certified too (an RLS policy with `||` never runs
 * directly on MySQL, H2).
 */
export function certify(stmt: Node, dialect: DirectDialect, tables: readonly CatalogTable[], flavour?: MysqlFlavour): Certification {
  const nodes = NODES[dialect];
  const fns = FUNCTIONS[dialect];
  for (const [n] of allNodes(stmt)) {
    const t = typeOf(n);
    const d = dataOf(n);
    // a regex mask (whole-value test + replacement in the certified regex subset, mask-regex.ts)
    // has a rendering measured to agree with PostgreSQL on MariaDB only; SQLite has no regex
    const maskRegex = (t === 'regexp_like' && !d.flags && isMaskPattern(d.pattern))
      || (t === 'function' && String(d.name).toLowerCase() === 'regexp_replace' && isMaskPattern(d.args?.[1]));
    if (maskRegex && dialect !== 'postgres') {
      if (dialect === 'mysql' && flavour === 'mariadb') continue;
      return { ok: false, reason: `regex masks are not certified for ${dialect === 'mysql' ? (flavour ?? 'mysql') : dialect}` };
    }
    if (nodes !== 'all' && !nodes.has(t)) return { ok: false, reason: `'${t}' is not certified for ${dialect}` };
    if ((t === 'function' || t === 'aggregate_function') && fns !== 'all' && !fns.has(String(d.name).toLowerCase())) {
      return { ok: false, reason: `${String(d.name)}() is not certified for ${dialect}` };
    }
    if (t === 'literal' && dialect !== 'postgres' && !['string', 'number'].includes(d.literal_type)) {
      return { ok: false, reason: `${d.literal_type} literals are not certified for ${dialect}` };
    }
    if (t === 'select' && dialect !== 'postgres' && (d.distinct_on || d.fetch || d.windows?.length)) {
      return { ok: false, reason: `DISTINCT ON / FETCH / named windows are not certified for ${dialect}` };
    }
    if ((t === 'union' || t === 'intersect' || t === 'except') && dialect === 'sqlite' && hasParenthesisedBranch(n)) {
      return { ok: false, reason: 'parenthesised set-operation branches are not certified for sqlite (#29)' };
    }
    if ((t === 'lag' || t === 'lead') && dialect !== 'postgres' && (d.default || d.offset)) {
      return { ok: false, reason: 'lag/lead with offset or default is not certified' };
    }
    if (t === 'select' && dialect === 'mysql' && [...(d.joins ?? []), ...joinedJoins(d)].some((j: Data) => /full/i.test(String(j.kind)))) {
      return { ok: false, reason: 'FULL JOIN is not available on MySQL/MariaDB' };
    }
    if (t === 'subquery' && d.lateral && dialect !== 'postgres') {
      return { ok: false, reason: `LATERAL is not certified for ${dialect} (#32)` };
    }
    if (d && typeof d === 'object' && d.filter && dialect === 'mysql') {
      return { ok: false, reason: 'aggregate FILTER is not certified for mysql (#11)' };
    }
    if (t === 'subquery' && d.column_aliases?.length && dialect !== 'postgres') {
      return { ok: false, reason: `derived column lists are not certified for ${dialect} (#4)` };
    }
  }
  if (dialect === 'mysql') return certifyMysqlStrings(stmt, tables);
  return { ok: true };
}

function joinedJoins(select: Data): Data[] {
  const out: Data[] = [];
  for (const f of select.from?.expressions ?? []) for (const [x] of allNodes(f)) if (typeOf(x) === 'joined_table') out.push(...(dataOf(x).joins ?? []));
  return out;
}

function hasParenthesisedBranch(n: Node): boolean {
  const d = dataOf(n);
  return ['left', 'right'].some((k) => d[k] && ['subquery', 'paren'].includes(typeOf(d[k])));
}

/**
 * MySQL/MariaDB compare strings under the column collation (case- and accent-insensitive by
 * default, PAD SPACE), so any comparison, grouping, ordering, DISTINCT or set-operation dedupe
 * over a string can silently differ from PostgreSQL. Unless the source declares binary string
 * semantics, a string value may only be projected: names of string columns (and of aliases of
 * string expressions, to a fixpoint) may not appear in any other position.
 */
function certifyMysqlStrings(stmt: Node, tables: readonly CatalogTable[]): Certification {
  const binary = tables.every((t) => t.source.binaryStrings === true);
  if (binary) return { ok: true };
  const stringNames = new Set<string>();
  for (const t of tables) for (const c of t.columns) if (typeClass(c.type) === 'string' || !c.type) stringNames.add(c.name.toLowerCase());
  const mentionsString = (e: Node): boolean => {
    for (const [x] of allNodes(e)) {
      const xt = typeOf(x);
      if (xt === 'literal' && dataOf(x).literal_type === 'string') return true;
      if (xt === 'column' && stringNames.has(identName(dataOf(x).name)!)) return true;
      if (xt === 'star') return true;
    }
    return false;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (const [x] of allNodes(stmt)) {
      if (typeOf(x) !== 'alias') continue;
      const name = identName(dataOf(x).alias)!;
      if (!stringNames.has(name) && mentionsString(dataOf(x).this)) {
        stringNames.add(name);
        changed = true;
      }
    }
  }
  const fail = (why: string): Certification => ({ ok: false, reason: `mysql: ${why} involves a string (collation semantics differ)` });
  for (const [x] of allNodes(stmt)) {
    const t = typeOf(x);
    const d = dataOf(x);
    if (['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in', 'not_in', 'between'].includes(t) && mentionsString(x)) return fail(`a comparison (${t})`);
    if (['min', 'max', 'count'].includes(t) && d.distinct && mentionsString(x)) return fail(`${t}(DISTINCT …)`);
    if (['min', 'max'].includes(t) && mentionsString(x)) return fail(t);
    if (t === 'select') {
      if (d.group_by && mentionsString({ tuple: { expressions: d.group_by.expressions ?? [] } })) return fail('GROUP BY');
      if (d.distinct && (d.expressions ?? []).some(mentionsString)) return fail('DISTINCT');
      if (d.order_by && (d.order_by.expressions ?? []).some((o: Node) => mentionsString(o.this ?? o))) return fail('ORDER BY');
    }
    if ((t === 'union' || t === 'intersect' || t === 'except') && !d.all) {
      for (const [y] of allNodes(x)) if (typeOf(y) === 'select' && (dataOf(y).expressions ?? []).some(mentionsString)) return fail(`${t.toUpperCase()} dedupe`);
    }
    if (t === 'window_function' && d.over) {
      const keys = [...(d.over.partition_by ?? []), ...(d.over.order_by ?? []).map((o: Node) => o.this)];
      if (keys.some(mentionsString)) return fail('a window PARTITION/ORDER BY');
    }
    if (t === 'join' && d.using?.length) return fail('JOIN USING');
  }
  return { ok: true };
}
