/**
 * Predicate and projection pushdown derived from the governed plan (engine route only).
 *
 * Soundness first: a spec only narrows what the engine fetches from a source; the engine SQL
 * keeps every filter, so a spec may let through more rows than the query needs, never fewer.
 * Per governed table reference `(SELECT <visible/masked cols> FROM <table> WHERE <RLS>) AS a`:
 *
 * - projection: the source columns the governed subquery itself reads (its select list, the
 *   source columns of its masks and its RLS columns); the subquery already lists only what the
 *   outer query can see. When it reads something we cannot attribute to a column (a nested
 *   query inside an RLS filter, an unknown name), the spec asks for every column.
 * - predicates: `col op literal` conjuncts (`= <> < <= > >= LIKE IN`, `IS [NOT] NULL`) of the
 *   subquery's own WHERE (RLS after session-variable substitution), plus conjuncts `a.col op
 *   literal` (or unqualified `col`) of the WHERE of the SELECT whose FROM holds the reference, when `col` is an
 *   unmasked column and that FROM reaches the reference through inner joins only (never the
 *   nullable side of an outer join). Literals keep their types; anything else (casts,
 *   functions, parameters, expressions on the column) is left to the engine, and so are a LIKE
 *   pattern with a backslash and, on SQLite/tik, a string compared with a non-text column
 *   (see `admissible`).
 *
 * Every reference of a landed table gets a spec (the engine lands the union of columns and only
 * the predicates common to every spec). A plan that reads a table of a source type the planner
 * does not know (a derived view that may read landed tables itself) gets no pushdown at all.
 */
import type { TableRef } from '../engine/catalog-entry.js';
import type { PushdownSpec } from '../engine/engine.js';
import type { SimplePredicate } from '../sources/simple-predicate.js';
import type { SqlLiteral } from '../sources/sql-literal.js';
import { type Node, allNodes, dataOf, identName, typeOf } from './ast-node.js';
import type { CatalogTable } from './catalog.js';
import type { GovernedStatement } from './govern.js';

/** Source types the engine lands per query through a Node driver. */
const LANDED = new Set(['postgresql', 'postgres', 'mysql', 'mariadb', 'sqlite', 'tik']);
/** Source types the engine scans in place: no spec needed. */
const SCANNED = new Set(['csv', 'parquet', 'json']);

/** Sources that compare a string with a typed column as text (SQLite: dates live as text). */
const TEXT_COMPARING = new Set(['sqlite', 'tik']);
const TEXT_TYPE = /^\s*(varchar|character varying|char|character|text|string|clob|nvarchar|nchar)\b/i;

/** Query nodes nested inside a governed subquery make its column use unattributable. */
const NESTED_QUERY = new Set(['select', 'union', 'intersect', 'except', 'subquery', 'exists']);

/** Join kinds that keep both sides non-nullable, and those that keep the left side. */
const INNER_KINDS = new Set(['inner', 'cross']);
const LEFT_KINDS = new Set(['left', 'leftouter', 'left_outer']);
const RIGHT_KINDS = new Set(['right', 'rightouter', 'right_outer']);

/**
 * The engine table a catalog table lands as. Default: the physical three-part engine name
 * `<source catalog>.<registered schema>.<table>` (catalogFromConfig's default exposure).
 */
export type TableRefOf = (table: CatalogTable) => TableRef | undefined;

export const defaultTableRef: TableRefOf = (table) => {
  const n = table.engineName;
  if (n.length !== 3 || n[0] !== table.source.id.replace(/-/g, '_')) return undefined;
  return { sourceId: table.source.id, schema: n[1]!, table: n[2]! };
};

const COMPARE: Readonly<Record<string, '=' | '<>' | '<' | '<=' | '>' | '>='>> = { eq: '=', neq: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' };
const FLIP: Readonly<Record<string, '=' | '<>' | '<' | '<=' | '>' | '>='>> = { '=': '=', '<>': '<>', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

type Value = Exclude<SqlLiteral, null>;

/** A literal with its type kept, or undefined for anything that is not a plain literal. */
export function literalValue(n: Node | undefined): Value | undefined {
  if (!n) return undefined;
  const t = typeOf(n);
  if (t === 'paren') return literalValue(dataOf(n).this);
  if (t === 'boolean') return typeof dataOf(n).value === 'boolean' ? dataOf(n).value : undefined;
  if (t === 'neg') {
    const v = literalValue(dataOf(n).this);
    if (typeof v === 'number') return -v;
    if (typeof v === 'bigint') return -v;
    return undefined;
  }
  if (t !== 'literal') return undefined;
  const d = dataOf(n);
  if (d.literal_type === 'string' && typeof d.value === 'string') return d.value;
  if (d.literal_type === 'number' && typeof d.value === 'string') return numberOf(d.value);
  return undefined;
}

function numberOf(text: string): number | bigint | undefined {
  if (/^\d+$/.test(text)) {
    const big = BigInt(text);
    return big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
  }
  // a decimal is kept only when a double holds it exactly as written (else the source would
  // compare a different number than the engine)
  if (/^\d*\.\d+$|^\d+\.\d*$/.test(text)) {
    const v = Number(text);
    if (!Number.isFinite(v)) return undefined;
    const canonical = text.replace(/^0+(?=\d)/, '').replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
    const normal = canonical.startsWith('.') ? `0${canonical}` : canonical;
    return String(v) === normal ? v : undefined;
  }
  return undefined;
}

/** Conjuncts of a boolean expression (AND flattened, parentheses looked through). */
function conjuncts(n: Node | undefined): Node[] {
  if (!n) return [];
  const t = typeOf(n);
  if (t === 'paren') return conjuncts(dataOf(n).this);
  if (t === 'and') return [...conjuncts(dataOf(n).left), ...conjuncts(dataOf(n).right)];
  return [n];
}

/** A column reference's (qualifier, name) as PostgreSQL binds them, or undefined. */
function columnOf(n: Node | undefined): { qualifier?: string; name: string } | undefined {
  if (!n) return undefined;
  if (typeOf(n) === 'paren') return columnOf(dataOf(n).this);
  if (typeOf(n) !== 'column') return undefined;
  const d = dataOf(n);
  const name = identName(d.name);
  if (name === undefined) return undefined;
  const qualifier = identName(d.table);
  return qualifier === undefined ? { name } : { qualifier, name };
}

/** One conjunct as `column op literal`, naming the column through `resolve` (undefined: not pushable). */
export function simplePredicate(n: Node, resolve: (c: { qualifier?: string; name: string }) => string | undefined): SimplePredicate | undefined {
  const t = typeOf(n);
  const d = dataOf(n);
  const op = COMPARE[t];
  if (op) {
    const lc = columnOf(d.left);
    const rc = columnOf(d.right);
    if (lc && !rc) {
      const column = resolve(lc);
      const value = literalValue(d.right);
      return column !== undefined && value !== undefined ? { column, op, value } : undefined;
    }
    if (rc && !lc) {
      const column = resolve(rc);
      const value = literalValue(d.left);
      return column !== undefined && value !== undefined ? { column, op: FLIP[op]!, value } : undefined;
    }
    return undefined;
  }
  if (t === 'like') {
    if (d.escape != null || d.quantifier != null || d.not === true) return undefined;
    const c = columnOf(d.left);
    const value = literalValue(d.right);
    const column = c && resolve(c);
    return column !== undefined && typeof value === 'string' ? { column, op: 'LIKE', value } : undefined;
  }
  if (t === 'in') {
    if (d.not === true || d.query != null || !Array.isArray(d.expressions) || d.expressions.length === 0) return undefined;
    const c = columnOf(d.this);
    const column = c && resolve(c);
    const values = (d.expressions as Node[]).map(literalValue);
    if (column === undefined || values.some((v) => v === undefined)) return undefined;
    return { column, op: 'IN', values: values as Value[] };
  }
  if (t === 'is_null') {
    const c = columnOf(d.this);
    const column = c && resolve(c);
    return column !== undefined ? { column, op: d.not === true ? 'IS NOT NULL' : 'IS NULL' } : undefined;
  }
  return undefined;
}

/** A governed subquery found in the statement. */
interface GovernedRef {
  readonly node: Node;
  readonly inner: Node;
  readonly table: CatalogTable;
  readonly alias: string | undefined;
}

function governedRefs(gov: GovernedStatement): GovernedRef[] {
  const out: GovernedRef[] = [];
  for (const [n] of allNodes(gov.stmt)) {
    if (typeOf(n) !== 'subquery') continue;
    const inner: Node | undefined = dataOf(n).this;
    if (!inner || typeOf(inner) !== 'select') continue;
    const from: Node[] = dataOf(inner).from?.expressions ?? [];
    const only = from.length === 1 ? from[0]! : undefined;
    if (!only || typeOf(only) !== 'table' || (dataOf(inner).joins ?? []).length > 0) continue;
    const td = dataOf(only);
    if (td.schema || td.catalog) continue;
    const table = gov.placeholders.get(String(td.name?.name));
    if (!table) continue;
    const hasAliasList = Array.isArray(dataOf(n).column_aliases) && dataOf(n).column_aliases.length > 0;
    out.push({ node: n, inner, table, alias: hasAliasList ? undefined : identName(dataOf(n).alias) });
  }
  return out;
}

/** Case-insensitive lookup of a registered column (undefined when absent or ambiguous). */
function sourceColumn(table: CatalogTable, name: string): string | undefined {
  const hits = table.columns.filter((c) => c.name.toLowerCase() === name.toLowerCase());
  if (hits.length === 0) return undefined;
  const exact = hits.find((c) => c.name === name);
  if (exact) return exact.name;
  return hits.length === 1 ? hits[0]!.name : undefined;
}

/** The source columns a governed subquery reads, or undefined (all) when not attributable. */
function projectionOf(ref: GovernedRef): string[] | undefined {
  const cols = new Set<string>();
  for (const [n] of allNodes(ref.inner)) {
    if (n === ref.inner) continue;
    const t = typeOf(n);
    if (NESTED_QUERY.has(t) || t === 'star') return undefined;
    if (t !== 'column') continue;
    const c = columnOf(n);
    const name = c && sourceColumn(ref.table, c.name);
    if (name === undefined) return undefined;
    cols.add(name);
  }
  // order as registered, for stable specs and source statements
  return ref.table.columns.map((c) => c.name).filter((c) => cols.has(c));
}

/** Output column name → source column, for the plain (unmasked) items of the select list. */
function plainOutputs(ref: GovernedRef): Map<string, string> {
  const out = new Map<string, string>();
  const ambiguous = new Set<string>();
  for (const e of dataOf(ref.inner).expressions as Node[]) {
    const t = typeOf(e);
    let outName: string | undefined;
    let source: string | undefined;
    if (t === 'column') {
      const c = columnOf(e);
      outName = c?.name;
      source = c && sourceColumn(ref.table, c.name);
    } else if (t === 'alias') {
      // masked items are `<mask expression> AS col`; only a bare column under an alias is plain
      outName = identName(dataOf(e).alias);
      const c = columnOf(dataOf(e).this);
      source = c && sourceColumn(ref.table, c.name);
    }
    if (outName === undefined) continue;
    if (out.has(outName) || ambiguous.has(outName)) {
      out.delete(outName);
      ambiguous.add(outName);
      continue;
    }
    if (source !== undefined) out.set(outName, source);
  }
  return out;
}

/** The SELECT whose FROM (or a join) holds `node` directly, with whether `node` is never null-extended. */
function enclosingSelects(root: Node): Map<Node, { select: Node; preserved: boolean }> {
  const out = new Map<Node, { select: Node; preserved: boolean }>();
  for (const [n] of allNodes(root)) {
    if (typeOf(n) !== 'select') continue;
    const d = dataOf(n);
    const from: Node[] = d.from?.expressions ?? [];
    const joins: { this: Node; kind?: string; nesting_group?: number }[] = d.joins ?? [];
    const kind = (j: { kind?: string }) => String(j.kind ?? '').toLowerCase();
    const nested = joins.some((j) => (j.nesting_group ?? 0) !== 0);
    const anyRightOrFull = joins.some((j) => !INNER_KINDS.has(kind(j)) && !LEFT_KINDS.has(kind(j)));
    for (const f of from) out.set(f, { select: n, preserved: !nested && !anyRightOrFull });
    joins.forEach((j, i) => {
      const later = joins.slice(i + 1);
      // `x RIGHT JOIN r`: r is the preserved side, like either side of an inner join
      const preserved = !nested && (INNER_KINDS.has(kind(j)) || RIGHT_KINDS.has(kind(j))) && later.every((x) => INNER_KINDS.has(kind(x)) || LEFT_KINDS.has(kind(x)));
      out.set(j.this, { select: n, preserved });
    });
  }
  return out;
}

/** Aliases of every relation held directly by a SELECT's FROM and joins. */
function relationAliases(select: Node): string[] {
  const d = dataOf(select);
  const items: Node[] = [...(d.from?.expressions ?? []), ...((d.joins ?? []) as { this: Node }[]).map((j) => j.this)];
  return items.map((i) => {
    const x = dataOf(i);
    return x && typeof x === 'object' ? (identName(x.alias) ?? (typeOf(i) === 'table' ? identName(x.name) : undefined)) : undefined;
  }).filter((a): a is string => a !== undefined);
}

/**
 * The governed statement with each governed subquery's select list narrowed to the columns the
 * rest of the statement can name, when that is provable: no `*` or `alias.*` anywhere, no
 * NATURAL or USING join, no column alias list on the reference and no whole-row use of its
 * alias. A column is kept when any column reference outside the governed subqueries has its
 * name, whatever the qualifier (over-keeping is safe; dropping a used column is not). Filters
 * are untouched. Returns `gov` itself when nothing can be narrowed.
 */
export function narrowProjections(gov: GovernedStatement): GovernedStatement {
  const refs = governedRefs(gov);
  if (refs.length === 0) return gov;
  const insideGoverned = new Set<Node>();
  for (const r of refs) for (const [n] of allNodes(r.inner)) insideGoverned.add(n);
  const used = new Set<string>();
  for (const [n] of allNodes(gov.stmt)) {
    const t = typeOf(n);
    if (t === 'star') return gov;
    if (t === 'function' && String(dataOf(n).name).toLowerCase() === 'columns') return gov;
    if (t === 'select') {
      for (const j of (dataOf(n).joins ?? []) as { kind?: string; using?: unknown[] }[]) {
        if ((j.using ?? []).length > 0 || String(j.kind ?? '').toLowerCase().includes('natural')) return gov;
      }
    }
    if (t === 'column' && !insideGoverned.has(n)) {
      const c = columnOf(n);
      if (c) used.add(c.name.toLowerCase());
    }
  }
  const stmt = structuredClone(gov.stmt);
  const narrowed = governedRefs({ ...gov, stmt });
  let changed = false;
  for (const r of narrowed) {
    if (r.alias === undefined || used.has(r.alias.toLowerCase())) continue;
    const items = dataOf(r.inner).expressions as Node[];
    const keep = items.filter((e) => {
      const name = typeOf(e) === 'alias' ? identName(dataOf(e).alias) : columnOf(e)?.name;
      return name === undefined || used.has(name.toLowerCase());
    });
    if (keep.length === items.length) continue;
    dataOf(r.inner).expressions = keep.length > 0 ? keep : items.slice(0, 1);
    changed = true;
  }
  return changed ? { ...gov, stmt } : gov;
}

export interface PushdownOptions {
  readonly tableRef?: TableRefOf;
}

/**
 * The pushdown specs of a governed statement: one per reference to a landed table, or
 * undefined when the statement reads a table whose landing the planner cannot reason about.
 */
export function derivePushdown(gov: GovernedStatement, options: PushdownOptions = {}): PushdownSpec[] | undefined {
  const refOf = options.tableRef ?? defaultTableRef;
  for (const t of gov.tables) {
    const type = t.source.type.toLowerCase();
    if (!LANDED.has(type) && !SCANNED.has(type)) return undefined;
  }
  const refs = governedRefs(gov);
  const enclosing = enclosingSelects(gov.stmt);
  const specs: PushdownSpec[] = [];
  for (const ref of refs) {
    if (!LANDED.has(ref.table.source.type.toLowerCase())) continue;
    const tableRef = refOf(ref.table);
    if (tableRef === undefined) continue;
    const columns = projectionOf(ref);
    const predicates: SimplePredicate[] = [];
    // the governed subquery's own WHERE: its only relation is the table, so every column is a source column
    for (const c of conjuncts(dataOf(ref.inner).where_clause?.this)) {
      const p = simplePredicate(c, (col) => (col.qualifier === undefined ? sourceColumn(ref.table, col.name) : undefined));
      if (p && admissible(p, ref.table)) predicates.push(p);
    }
    // the enclosing SELECT's WHERE, when it reaches the reference through inner joins only
    const at = enclosing.get(ref.node);
    const alias = ref.alias;
    if (at && at.preserved && alias !== undefined && relationAliases(at.select).filter((a) => a === alias).length === 1) {
      const outputs = plainOutputs(ref);
      for (const c of conjuncts(dataOf(at.select).where_clause?.this)) {
        // an unqualified name that the reference outputs binds to it (were another relation of
        // this FROM to output the name too, the query would fail as ambiguous with or without pushdown)
        const p = simplePredicate(c, (col) => (col.qualifier === alias || col.qualifier === undefined ? outputs.get(col.name) : undefined));
        if (p && admissible(p, ref.table)) predicates.push(p);
      }
    }
    specs.push({
      table: tableRef,
      ...(columns !== undefined ? { columns } : {}),
      ...(predicates.length > 0 ? { predicates: dedupe(predicates) } : {}),
    });
  }
  return specs;
}

/**
 * Whether the source answers `p` with a superset of what the engine keeps, whatever the dialect:
 * a LIKE pattern with a backslash is left out (the default escape differs between sources), and
 * a sqlite/tik source compares a string with a date, time or number column as text, where the
 * engine compares typed values (`'2024-1-5'` is the date 2024-01-05), so that pair is left out too.
 */
function admissible(p: SimplePredicate, table: CatalogTable): boolean {
  if (p.op === 'LIKE' && typeof p.value === 'string' && p.value.includes('\\')) return false;
  const strings = p.op === 'IN' ? p.values.some((v) => typeof v === 'string') : 'value' in p && typeof p.value === 'string';
  if (!strings || !TEXT_COMPARING.has(table.source.type.toLowerCase())) return true;
  const type = table.columns.find((c) => c.name === p.column)?.type;
  return type !== undefined && TEXT_TYPE.test(type);
}

function dedupe(ps: readonly SimplePredicate[]): SimplePredicate[] {
  const seen = new Set<string>();
  return ps.filter((p) => {
    const k = JSON.stringify(p, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
