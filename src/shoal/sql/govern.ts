import { didYouMean } from '../config/did-you-mean.js';
import { ShoalError } from '../errors.js';
import { type Node, allNodes, columnRef, dataOf, identName, identifier, numberLiteral, positionOf, replaceInPlace, typeOf } from './ast-node.js';
import type { CatalogColumn, CatalogTable, GovernanceCatalog } from './catalog.js';
import { bindCatalogViews } from './catalog-views.js';
import { type ScopedTable, checkColumns } from './column-check.js';
import { type Clock, substituteCurrentTime } from './current-time.js';
import { maskExpression } from './mask.js';
import { type OutputColumn, collectCtes, pgColumnName, queryOutputs } from './output-columns.js';
import { rowFilterExpression } from './row-filter.js';
import { enumerateTables, renameCtes } from './scope.js';
import { leftmostSelect, spelledNames } from './spelled-names.js';
import { refuseStarModifiers } from './star-modifiers.js';
import { type SessionVars, substituteSessionVars } from './session-vars.js';

/** A statement after governance, before a route and a dialect are chosen. */
export interface GovernedStatement {
  /** Governed AST in PostgreSQL form; base tables appear as placeholders (see `placeholders`). */
  readonly stmt: Node;
  /** Placeholder relation name → the catalog table it stands for. */
  readonly placeholders: ReadonlyMap<string, CatalogTable>;
  /** Distinct catalog tables read, in order of first reference. */
  readonly tables: readonly CatalogTable[];
  readonly columns: readonly OutputColumn[];
  readonly rowCap?: number;
}

export const PLACEHOLDER_PREFIX = '__shoal_t_';

const and = (left: Node, right: Node): Node => ({ and: { left, right, left_comments: [], operator_comments: [], trailing_comments: [] } });
const paren = (n: Node): Node => ({ paren: { this: n, trailing_comments: [] } });

/**
 * Governance as one pass (law S6): every reference to a registered table is replaced by a
 * governed subquery `(SELECT <visible columns, masked at the source> FROM <table> WHERE <row
 * filters>) AS <alias>` — approach B of the study, the one with no leaks in any tested shape.
 * Masking at the source means no later use (`*`, `t.*`, whole-row, WHERE, ORDER BY, GROUP BY)
 * ever sees a raw value; hidden columns do not exist in the user's scope at all.
 * Mutates `stmt` (parse it fresh per call).
 */
export function governStatement(stmt: Node, catalog: GovernanceCatalog, roleId: string, vars: SessionVars, sql?: string, clock: Clock = () => new Date()): GovernedStatement {
  const role = catalog.role(roleId);
  if (!role) throw new ShoalError('SQL_UNKNOWN_ROLE', `role "${roleId}" is not defined`, { hint: 'pass a role defined in the config (X-Provisa-Role or "role")' });

  normaliseLimitAll(stmt);
  refuseStarModifiers(stmt, sql);
  // result names as PostgreSQL gives them, read before now() and friends become literals
  const names = spelledNames(stmt, sql);
  substituteSessionVars(stmt, vars, 'query', sql);
  let instant: Date | undefined;
  const once: Clock = () => (instant ??= clock()); // one instant for the query and every row filter
  substituteCurrentTime(stmt, once);

  // information_schema.tables / .columns: the role's own rows, bound before tables resolve
  const views = bindCatalogViews(stmt, catalog, roleId);
  const readable = (tableKey: string) => catalog.canAccess(roleId, tableKey) && catalog.visibleColumns(roleId, tableKey).length > 0;
  // 1. resolve every base-table reference (CTE references bind first, by PostgreSQL scoping)
  const refs = enumerateTables(stmt).filter((r) => !r.cte);
  const resolved = new Map<Node, CatalogTable>();
  for (const ref of refs) {
    const position = positionOf(ref.node, sql);
    const at = position ? { position } : {};
    const shown = ref.parts.join('.');
    if (ref.parts.some((p) => p.includes('.'))) {
      throw new ShoalError('SQL_UNKNOWN_TABLE', `table "${shown}": names containing dots are not accepted`, { ...at, hint: 'write schema and table as separate identifiers' });
    }
    // a table the role may not read is indistinguishable from a missing one: same code, same
    // message, and candidates (ambiguity, suggestions) only from the tables the role can read
    const found = catalog.resolveTable(ref.parts).filter((t) => readable(t.tableKey));
    if (found.length === 0) throw unknownTable(shown, roleId, catalog, readable, at);
    if (found.length > 1) {
      throw new ShoalError('SQL_AMBIGUOUS_TABLE', `table "${shown}" could mean ${found.map((t) => t.tableKey).join(', ')}`, { ...at, hint: 'qualify it with its domain' });
    }
    const table = found[0]!;
    resolved.set(ref.node, table);
  }

  // 2. column references: unknown (or hidden, which is the same to the role) columns are 4xx errors with a position
  const scoped = new Map<Node, ScopedTable>();
  for (const [node, table] of resolved) {
    const d = dataOf(node);
    // a column alias list (`AS x(a, b)`) renames the columns: leave those names to the engine
    if (d.column_aliases?.length) continue;
    scoped.set(node, {
      qualifier: identName(d.alias) ?? identName(d.name)!,
      tableKey: table.tableKey,
      visible: new Set(catalog.visibleColumns(roleId, table.tableKey).map((c) => c.toLowerCase())),
    });
  }
  checkColumns(stmt, (n) => scoped.get(n), sql);

  // 3. CTE hygiene (H3), then 4. one governed subquery per reference
  renameCtes(stmt);
  const placeholders = new Map<string, CatalogTable>();
  const placeholderOf = new Map<string, string>();
  const governed = new Map<Node, readonly CatalogColumn[]>();
  const filterCache = new Map<string, Node[]>();
  for (const [node, table] of resolved) {
    let ph = placeholderOf.get(table.tableKey);
    if (!ph) {
      ph = `${PLACEHOLDER_PREFIX}${placeholderOf.size + 1}`;
      placeholderOf.set(table.tableKey, ph);
      placeholders.set(ph, table);
    }
    if (!filterCache.has(table.tableKey)) {
      filterCache.set(table.tableKey, catalog.rowFilters(roleId, table.tableKey).map((f) => rowFilterExpression(f, `${table.tableKey} for role ${roleId}`, vars, once)));
    }
    const visible = new Set(catalog.visibleColumns(roleId, table.tableKey).map((c) => c.toLowerCase()));
    const cols = table.columns.filter((c) => visible.has(c.name.toLowerCase()));
    const projection = cols.map((c) => {
      const mask = catalog.mask(roleId, table.tableKey, c.name);
      if (!mask) return columnRef(c.name);
      return { alias: { this: maskExpression(mask, c, columnRef(c.name), `${table.tableKey}.${c.name}`), alias: identifier(c.name), column_aliases: [], alias_explicit_as: true, pre_alias_comments: [], trailing_comments: [] } };
    });
    // fresh copies: the same filter node must not be shared between two subqueries
    const filters = filterCache.get(table.tableKey)!.map((f) => paren(structuredClone(f)));
    const inner = selectNode(projection, tableNode(ph), filters.length ? filters.reduce((a, b) => and(a, b)) : undefined);
    governed.set(inner, cols);
    const t = dataOf(node);
    replaceInPlace(node, {
      subquery: {
        this: inner,
        alias: t.alias ?? { name: t.name.name, quoted: t.name.quoted, trailing_comments: [] },
        column_aliases: t.column_aliases ?? [],
        alias_explicit_as: true,
        order_by: null, limit: null, offset: null, lateral: false, modifiers_inside: false, trailing_comments: [],
      },
    });
  }

  // 5. output names: alias every top-level expression with the name PostgreSQL gives it, so
  // every route returns the same column names (DuckDB would say count_star(), MySQL count(*))
  const ctx = { governed, ctes: collectCtes(stmt), names };
  const columns = queryOutputs(stmt, ctx);
  if (!columns) {
    throw new ShoalError('SQL_UNSUPPORTED', 'the result columns of this query cannot be determined (a * over a source of unknown shape)', {
      hint: 'list the result columns explicitly instead of *',
    });
  }
  aliasTopLevel(stmt, ctx);

  // 6. the role's row cap
  checkLimits(stmt, sql);
  // the cap bounds data rows; a query of the catalog views alone reads none (DESCRIBE is never cut short)
  const rowCap = views > 0 && resolved.size === 0 ? undefined : role.rowCap;
  if (rowCap !== undefined) applyRowCap(stmt, rowCap);

  const tables = [...new Map([...resolved.values()].map((t) => [t.tableKey, t])).values()];
  return { stmt, placeholders, tables, columns, ...(rowCap !== undefined ? { rowCap } : {}) };
}

/** SQL_UNKNOWN_TABLE for a table that is missing or that the role may not read (the same error either way). */
function unknownTable(shown: string, roleId: string, catalog: GovernanceCatalog, readable: (tableKey: string) => boolean, at: { position?: { line: number; column: number } }): ShoalError {
  const mine = catalog.tableKeys().filter(readable);
  const guess = didYouMean(shown, mine) ?? didYouMean(shown.split('.').pop()!, mine.map((k) => k.split('.').pop()!));
  const suggestion = guess === undefined ? undefined : mine.find((k) => k === guess || k.endsWith(`.${guess}`));
  return new ShoalError('SQL_UNKNOWN_TABLE', `table "${shown}" does not exist or is not available to role ${roleId}`, {
    ...at,
    hint: suggestion ? `did you mean ${suggestion}?` : 'use <domain>.<table> of a table your role may read',
  });
}

function tableNode(name: string): Node {
  return { table: { name: { name, quoted: false, trailing_comments: [] }, schema: null, catalog: null, alias: null, alias_explicit_as: false, column_aliases: [], trailing_comments: [], when: null, only: false, final_: false, hints: [] } };
}

function selectNode(expressions: Node[], from: Node, where: Node | undefined): Node {
  return {
    select: {
      expressions, from: { expressions: [from] }, joins: [], lateral_views: [], where_clause: where ? { this: where } : null,
      group_by: null, having: null, qualify: null, order_by: null, distribute_by: null, cluster_by: null, sort_by: null,
      limit: null, offset: null, fetch: null, distinct: false, distinct_on: null, top: null, with: null, sample: null,
      windows: null, hint: null, connect: null, into: null, locks: [], leading_comments: [],
    },
  };
}


function aliasTopLevel(stmt: Node, ctx: Parameters<typeof pgColumnName>[1]): void {
  const sel = leftmostSelect(stmt);
  if (!sel) return;
  dataOf(sel).expressions = (dataOf(sel).expressions as Node[]).map((e) => {
    const t = typeOf(e);
    if (t === 'alias' || t === 'column' || t === 'star') return e;
    return { alias: { this: e, alias: identifier(pgColumnName(e, ctx)), column_aliases: [], alias_explicit_as: true, pre_alias_comments: [], trailing_comments: [] } };
  });
}

/** `LIMIT ALL` parses as a column named ALL (and generates as `LIMIT "ALL"`, H12): it means no limit. */
function normaliseLimitAll(stmt: Node): void {
  for (const [n] of allNodes(stmt)) {
    const d = dataOf(n);
    if (!d || typeof d !== 'object' || !d.limit) continue;
    const lim: Node = typeOf(n) === 'select' ? d.limit.this : d.limit;
    if (lim && typeOf(lim) === 'column' && !dataOf(lim).table && !dataOf(lim).name.quoted && String(dataOf(lim).name.name).toUpperCase() === 'ALL') d.limit = null;
  }
}

const intLiteral = (n: Node | undefined): bigint | undefined => {
  if (!n || typeOf(n) !== 'literal' || dataOf(n).literal_type !== 'number' || !/^\d+$/.test(dataOf(n).value)) return undefined;
  return BigInt(dataOf(n).value);
};

/** LIMIT / OFFSET / FETCH must be integer literals everywhere (portable, and cappable). */
function checkLimits(stmt: Node, sql?: string): void {
  for (const [n] of allNodes(stmt)) {
    const t = typeOf(n);
    if (!['select', 'union', 'intersect', 'except'].includes(t)) continue;
    const d = dataOf(n);
    const parts: (Node | undefined)[] = [
      d.limit ? (t === 'select' ? d.limit.this : d.limit) : undefined,
      d.offset ? (d.offset.this ?? d.offset) : undefined,
      d.fetch ? d.fetch.count : undefined,
    ];
    for (const p of parts) {
      if (p && intLiteral(p) === undefined) {
        const position = positionOf(p, sql);
        throw new ShoalError('SQL_UNSUPPORTED', 'LIMIT, OFFSET and FETCH take a non-negative integer literal', { ...(position ? { position } : {}), hint: 'write the row count as a number' });
      }
    }
    if (d.fetch && (d.fetch.percent || d.fetch.with_ties)) throw new ShoalError('SQL_UNSUPPORTED', 'FETCH ... PERCENT / WITH TIES is not supported', { hint: 'use LIMIT n' });
  }
}

/** Cap the top-level query at `cap` rows: lower an existing LIMIT/FETCH, or add a LIMIT. */
function applyRowCap(stmt: Node, cap: number): void {
  const t = typeOf(stmt);
  const d = dataOf(stmt);
  const capLit = numberLiteral(String(cap));
  const lower = (n: Node | undefined): Node => {
    const v = intLiteral(n);
    return v !== undefined && v <= BigInt(cap) ? n! : capLit;
  };
  if (d.fetch) {
    d.fetch.count = lower(d.fetch.count);
    return;
  }
  if (t === 'select') d.limit = { this: lower(d.limit?.this) };
  else d.limit = lower(d.limit ?? undefined);
}

