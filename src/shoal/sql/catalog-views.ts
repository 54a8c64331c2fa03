/**
 * `information_schema.tables` and `information_schema.columns`, answered per role: each
 * reference is replaced, before governance resolves tables, by a derived table over a VALUES
 * list built from `roleCatalog` — only the tables the role may read and, in them, the columns not
 * hidden from it. The rows are data written into the query as standard string literals (which
 * the generator escapes, and the generated SQL is re-parsed and checked as every query is), so
 * the views run on any route and are governed like everything else.
 */
import { ShoalError } from '../errors.js';
import { type Node, dataOf, replaceInPlace } from './ast-node.js';
import type { GovernanceCatalog } from './catalog.js';
import { type RoleCatalogTable, roleCatalog } from './role-catalog.js';
import { enumerateTables } from './scope.js';
import { parseTemplate } from './template.js';

/** The catalog name `table_catalog` reports. */
export const CATALOG_NAME = 'shoal';

type Cell = string | number;
interface View {
  readonly columns: readonly (readonly [name: string, type: 'text' | 'integer'])[];
  readonly rows: (tables: readonly RoleCatalogTable[]) => Cell[][];
}

const VIEWS: Readonly<Record<string, View>> = {
  tables: {
    columns: [['table_catalog', 'text'], ['table_schema', 'text'], ['table_name', 'text'], ['table_type', 'text']],
    rows: (ts) => ts.map((t) => [CATALOG_NAME, t.schema, t.name, 'BASE TABLE']),
  },
  columns: {
    columns: [['table_catalog', 'text'], ['table_schema', 'text'], ['table_name', 'text'], ['column_name', 'text'], ['ordinal_position', 'integer'],
      ['data_type', 'text'], ['is_nullable', 'text'], ['is_masked', 'text']],
    rows: (ts) => ts.flatMap((t) => t.columns.map((c, i) => [CATALOG_NAME, t.schema, t.name, c.name, i + 1, c.type, 'YES', c.masked ? 'YES' : 'NO'])),
  },
};

const quote = (v: Cell) => (typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`);

/** The derived table standing for one view, as PostgreSQL text (typed columns, so an empty view keeps its shape). */
function viewSql(view: View, tables: readonly RoleCatalogTable[]): string {
  const rows = view.rows(tables);
  const typed = view.columns.map(([n, t], i) => `CAST(c${i + 1} AS ${t === 'integer' ? 'INTEGER' : 'TEXT'}) AS ${n}`).join(', ');
  const names = view.columns.map((_, i) => `c${i + 1}`).join(', ');
  if (rows.length === 0) return `SELECT ${view.columns.map(([n, t]) => `CAST(NULL AS ${t === 'integer' ? 'INTEGER' : 'TEXT'}) AS ${n}`).join(', ')} WHERE 1 = 0`;
  return `SELECT ${typed} FROM (VALUES ${rows.map((r) => `(${r.map(quote).join(', ')})`).join(', ')}) AS v(${names})`;
}

/** Whether identifier parts name an information_schema view (`information_schema.x`, or with the catalog name before it). */
function viewName(parts: readonly string[]): string | undefined {
  const p = parts.map((x) => x.toLowerCase());
  if (p.length === 2 && p[0] === 'information_schema') return p[1];
  if (p.length === 3 && p[0] === CATALOG_NAME && p[1] === 'information_schema') return p[2];
  return undefined;
}

/**
 * Replace every `information_schema.tables|columns` reference in `stmt` by the role's rows.
 * Returns how many were bound. Any other information_schema relation is SQL_UNKNOWN_TABLE.
 */
export function bindCatalogViews(stmt: Node, catalog: GovernanceCatalog, roleId: string): number {
  let tables: RoleCatalogTable[] | undefined;
  let bound = 0;
  for (const ref of enumerateTables(stmt)) {
    if (ref.cte) continue;
    const name = viewName(ref.parts);
    if (name === undefined) continue;
    const view = VIEWS[name];
    if (!view) {
      throw new ShoalError('SQL_UNKNOWN_TABLE', `table "${ref.parts.join('.')}" does not exist`, {
        hint: 'information_schema has the views tables and columns',
      });
    }
    tables ??= roleCatalog(catalog, roleId);
    const parsed = parseTemplate(viewSql(view, tables));
    if (!parsed || parsed.length !== 1) throw new ShoalError('INTERNAL_CATALOG_VIEW', `information_schema.${name} could not be built`);
    const t = dataOf(ref.node);
    replaceInPlace(ref.node, {
      subquery: {
        this: parsed[0]!,
        alias: t.alias ?? { name: t.name.name, quoted: t.name.quoted, trailing_comments: [] },
        column_aliases: t.column_aliases ?? [],
        alias_explicit_as: true,
        order_by: null, limit: null, offset: null, lateral: false, modifiers_inside: false, trailing_comments: [],
      },
    });
    bound++;
  }
  return bound;
}
