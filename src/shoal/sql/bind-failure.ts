/**
 * When a governed query fails to bind at the engine or at a source, say which part of the catalog
 * is wrong. The user's own column references are checked before anything runs (SQL_UNKNOWN_COLUMN),
 * so a missing column or a function that does not take a column's type at this stage comes from
 * what governance composed: an RLS filter, a mask, or a registered column the source lacks.
 *
 * The engine's and sources' error text can carry row values, so it is never echoed: only an
 * identifier that names something in the catalog is taken from it, and the message is built from
 * the catalog (rule, table, column). The error keeps its code (and so its HTTP status, 5xx: the
 * catalog is at fault) and cause. A failure on a name the query itself uses that is not a column
 * the catalog gives the role is the client's mistake: SQL_UNKNOWN_COLUMN or SQL_BAD_ARGUMENTS (400).
 */
import { ShoalError } from '../errors.js';
import type { CatalogTable, GovernanceCatalog } from './catalog.js';
import { typeClass } from './column-type.js';
import { filterColumns } from './filter-columns.js';

export interface BindFailureContext {
  readonly catalog: GovernanceCatalog;
  readonly roleId: string;
  /** Keys of the tables the plan reads. */
  readonly tables: readonly string[];
  /**
   * The user's SQL. A name it mentions may be the user's own mistake (a hidden or missing column
   * reached through a derived table, a function applied to the wrong type): that failure is left
   * as it is, so an error never tells a hidden column from a missing one, nor reveals a policy.
   */
  readonly sql: string;
  /** How to name the rule a filter comes from (e.g. `rls_rules[3]`), when the caller knows the config. */
  readonly ruleName?: (tableKey: string, filter: string) => string | undefined;
}

/** Missing-column messages: DuckDB, PostgreSQL (42703), MySQL/MariaDB (1054), SQLite. */
const MISSING_COLUMN = [
  /Referenced column "([^"]+)" not found/,
  /does not have a column named "([^"]+)"/,
  /column "?(?:[A-Za-z0-9_]+\.)?([^"\s]+)"? does not exist/,
  /Unknown column '(?:[^']*\.)?([^'.]+)' in/,
  /no such column: (?:[A-Za-z0-9_"]+\.)?"?([^"\s]+)"?/,
];
/** DuckDB: `No function matches the given name and argument types 'date_trunc(STRING_LITERAL, VARCHAR)'`. */
const NO_FUNCTION = /No function matches the given name and argument types '([A-Za-z_]+)\(/;

function texts(e: unknown): string[] {
  const out: string[] = [];
  for (let x: unknown = e, depth = 0; x instanceof Error && depth < 5; x = (x as { cause?: unknown }).cause, depth++) out.push(x.message);
  return out;
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Whether `sql` mentions `name` as a word (quoted or not, any case). */
function mentions(sql: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^A-Za-z0-9_$])${escaped}($|[^A-Za-z0-9_$])`, 'i').test(sql);
}

/** A ShoalError naming the rule, mask or column at fault, or undefined when the failure is not one of those. */
export function explainBindFailure(e: unknown, ctx: BindFailureContext): ShoalError | undefined {
  if (!(e instanceof ShoalError) || (e.code !== 'ENGINE_QUERY_FAILED' && e.code !== 'SOURCE_QUERY_FAILED')) return undefined;
  const code = e.code;
  const all = texts(e);
  const tables = ctx.tables.flatMap((k) => ctx.catalog.resolveTable(k.split('.')).filter((t) => t.tableKey === k).slice(0, 1));
  const at = (t: CatalogTable) => (t.source.type === 'derived' ? `the view ${t.tableKey}` : `source ${t.source.id} table ${t.sourceName.schema ? `${t.sourceName.schema}.` : ''}${t.sourceName.table}`);
  const wrap = (message: string, hint: string) => new ShoalError(code, message, { ...(e.where ? { where: e.where } : {}), hint, cause: e });

  let missing: string | undefined;
  for (const text of all) {
    for (const re of MISSING_COLUMN) {
      const m = re.exec(text);
      if (m?.[1]) missing = m[1];
      if (missing) break;
    }
    if (missing) break;
  }
  if (missing !== undefined) {
    const name = missing;
    // a name the query itself uses is never blamed on a rule (that would reveal the policy)
    const own = mentions(ctx.sql, name);
    for (const t of own ? [] : tables) {
      for (const f of ctx.catalog.rowFilters(ctx.roleId, t.tableKey)) {
        if (!(filterColumns(f) ?? []).some((c) => same(c, name))) continue;
        const rule = ctx.ruleName?.(t.tableKey, f);
        return wrap(
          `the RLS rule ${rule ? `${rule} ` : ''}on ${t.tableKey} for role ${ctx.roleId} reads column "${name}", which ${at(t)} does not have`,
          'fix the rule\'s filter in the config (`shoal config check --connect` binds every rule against the sources)',
        );
      }
    }
    for (const t of tables) {
      // only a column the role sees is in its governed projection (a hidden one is never named)
      const visible = ctx.catalog.visibleColumns(ctx.roleId, t.tableKey);
      const col = t.columns.find((c) => same(c.name, name) && visible.some((v) => same(v, c.name)));
      if (!col) continue;
      return wrap(
        `registered column ${t.tableKey}.${col.name} is not in ${at(t)}`,
        'fix or remove the column in the config (`shoal config check --connect` lists what each source has)',
      );
    }
    // not a column the catalog gives the role: the query's own mistake (one the checks before the
    // engine cannot see, e.g. through a derived table), told alike for a hidden and a missing column
    if (!own) return undefined;
    return new ShoalError('SQL_UNKNOWN_COLUMN', 'the query reads a column that the table or subquery it reads it from does not have', {
      hint: 'check each column against the columns its table, view, subquery or CTE selects',
      cause: e,
    });
  }

  const fn = all.map((x) => NO_FUNCTION.exec(x)?.[1]?.toLowerCase()).find((x) => x !== undefined);
  if (fn === undefined) return undefined;
  if (mentions(ctx.sql, fn)) {
    // the query's own call (never blamed on a mask, which would reveal it)
    return new ShoalError('SQL_BAD_ARGUMENTS', `function ${fn}() does not take arguments of these types`, {
      hint: 'cast the arguments to the types the function takes',
      cause: e,
    });
  }
  const kind = fn === 'date_trunc' || fn === 'trunc' ? 'truncate' : fn.startsWith('regexp') ? 'regex' : undefined;
  if (kind === undefined) return undefined;
  for (const t of tables) {
    const visible = new Set(ctx.catalog.visibleColumns(ctx.roleId, t.tableKey).map((c) => c.toLowerCase()));
    for (const c of t.columns) {
      if (!visible.has(c.name.toLowerCase())) continue;
      const mask = ctx.catalog.mask(ctx.roleId, t.tableKey, c.name);
      if (mask?.kind !== kind) continue;
      // a truncate mask on a declared date/number, or a regex mask on a declared string, met another type at the source
      const declared = typeClass(c.type);
      if (kind === 'truncate' && !['date', 'timestamp', 'integer', 'numeric'].includes(declared)) continue;
      return wrap(
        `the ${kind} mask on ${t.tableKey}.${c.name} (declared ${c.type ?? 'untyped'}) cannot apply to the value ${at(t)} holds: ` +
          `${kind === 'truncate' ? 'it does not arrive as a date, timestamp or number (a SQLite TEXT column arrives as text)' : 'it does not arrive as a string'}`,
        kind === 'truncate'
          ? 'store the column as a date/timestamp at the source (SQLite: declare it DATETIME, TIMESTAMP or DATE), or use a constant mask; `shoal config check --connect` checks every mask'
          : 'use a constant mask for a non-string column; `shoal config check --connect` checks every mask',
      );
    }
  }
  return undefined;
}
