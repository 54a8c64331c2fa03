/**
 * What one role may see of the catalog: the tables it may read and, in each, the columns that
 * are not hidden from it, in declaration order, with their declared types and whether the role
 * sees them masked. A table the role may not read and a column hidden from it are absent, exactly
 * as they are to queries (hidden == missing). `information_schema`, `SHOW TABLES`, `DESCRIBE`
 * and `GET /data/catalog` all answer from this one function.
 */
import type { GovernanceCatalog } from './catalog.js';

export interface RoleCatalogColumn {
  readonly name: string;
  /** The declared type (lower case, as registered), or `unknown`. */
  readonly type: string;
  /** Whether this role reads the column through a mask. */
  readonly masked: boolean;
}

export interface RoleCatalogTable {
  /** The table's key, `<domain>.<name>`: the name queries use. */
  readonly table: string;
  /** The domain (the schema it answers to in `information_schema`). */
  readonly schema: string;
  readonly name: string;
  readonly columns: readonly RoleCatalogColumn[];
}

export function roleCatalog(catalog: GovernanceCatalog, roleId: string): RoleCatalogTable[] {
  if (!catalog.role(roleId)) return [];
  const out: RoleCatalogTable[] = [];
  for (const key of [...catalog.tableKeys()].sort()) {
    if (!catalog.canAccess(roleId, key)) continue;
    const visible = catalog.visibleColumns(roleId, key);
    if (visible.length === 0) continue; // a table with no visible column is unreadable, as in governance
    const dot = key.indexOf('.');
    const table = catalog.resolveTable([key.slice(0, dot), key.slice(dot + 1)]).find((t) => t.tableKey === key);
    const declared = new Map((table?.columns ?? []).map((c) => [c.name.toLowerCase(), c.type]));
    out.push({
      table: key,
      schema: key.slice(0, dot),
      name: key.slice(dot + 1),
      columns: visible.map((name) => ({ name, type: declared.get(name.toLowerCase()) ?? 'unknown', masked: catalog.mask(roleId, key, name) !== undefined })),
    });
  }
  return out;
}
