/**
 * The catalog one role may see, as a graph: its tables and visible columns (`roleCatalog`), each
 * table's visible primary-key columns, and the registered relationships the role can follow. The
 * GraphQL schema of a role is generated from this and nothing else, so a hidden table or column
 * cannot appear in it (hidden == missing, as for SQL).
 */
import { type CatalogModel, findTable, qualifiedName } from '../config/model.js';
import type { GovernanceCatalog } from './catalog.js';
import { type RoleCatalogTable, roleCatalog } from './role-catalog.js';

/** A relationship as the role can follow it, from the table that holds it. */
export interface RoleRelationship {
  /** The field name: `graphql_alias`, else `alias`, else the relationship id. */
  readonly name: string;
  /** `many-to-one`: one target row (or none) per row; `one-to-many`: a list. */
  readonly cardinality: 'many-to-one' | 'one-to-many';
  /** The column of this table the join reads. */
  readonly column: string;
  /** The table key (`<domain>.<table>`) of the other end, and its join column. */
  readonly target: string;
  readonly targetColumn: string;
}

export interface RoleGraphTable extends RoleCatalogTable {
  /** Visible, unmasked primary-key columns (`is_primary_key`), in declaration order. */
  readonly key: readonly string[];
  readonly relationships: readonly RoleRelationship[];
}

/**
 * A relationship is followed only when the role reads both tables and both join columns, visible
 * and unmasked: a join over masked values would pair the wrong rows, and one over a hidden column
 * would name it.
 */
export function roleGraph(catalog: GovernanceCatalog, model: Pick<CatalogModel, 'tables' | 'relationships'>, roleId: string): RoleGraphTable[] {
  const tables = roleCatalog(catalog, roleId);
  const byKey = new Map(tables.map((t) => [t.table, t]));
  // the column as the table declares it (a relationship may write it in another case), when the role reads it unmasked
  const readable = (key: string, column: string): string | undefined => {
    const c = byKey.get(key)?.columns.find((x) => x.name.toLowerCase() === column.toLowerCase());
    return c !== undefined && !c.masked ? c.name : undefined;
  };
  const keyOf = (ref: string): string | undefined => {
    const t = findTable(model, ref);
    return t ? qualifiedName(t).toLowerCase() : undefined;
  };
  return tables.map((t) => {
    const config = model.tables.find((x) => qualifiedName(x).toLowerCase() === t.table);
    const key = (config?.columns ?? []).filter((c) => c.is_primary_key && readable(t.table, c.name) !== undefined).map((c) => c.name);
    const relationships: RoleRelationship[] = [];
    for (const r of model.relationships) {
      if (keyOf(r.source_table_id) !== t.table) continue;
      const target = keyOf(r.target_table_id);
      const column = readable(t.table, r.source_column);
      const targetColumn = target === undefined ? undefined : readable(target, r.target_column);
      if (target === undefined || column === undefined || targetColumn === undefined) continue;
      relationships.push({ name: r.graphql_alias ?? r.alias ?? r.id, cardinality: r.cardinality, column, target, targetColumn });
    }
    return { ...t, key, relationships };
  });
}
