/**
 * The identity derived tables are computed with: never the caller's (Trino's REFRESH runs as
 * `current_user`, trinodb/trino#28738). `view_sql` is planned for a built-in service role that sees
 * every column unmasked, has no row filter and no row cap, on the engine route. Who may read the
 * result is decided at read time by the derived table's own visibility, masks and RLS.
 */
import type { CatalogModel, ColumnConfig, RoleConfig, TableConfig } from '../config/model.js';
import { qualifiedName } from '../config/model.js';
import { ShoalError } from '../errors.js';
import { catalogFromConfig, planQuery, type GovernanceCatalog } from '../sql/index.js';
import { engineNameWithMvs } from './mv-relation.js';

/** The built-in role MV content is computed as. It is not in the registry: no caller can act as it. */
export const SERVICE_ROLE_ID = '__shoal_service__';

/**
 * The model as the service role sees it: every column visible and unmasked, every domain, no RLS
 * rule names it, no row cap. (Only the service catalog holds this role.)
 */
export function serviceModel(model: CatalogModel): CatalogModel {
  const role: RoleConfig = { id: SERVICE_ROLE_ID, capabilities: ['admin', 'full_results'], domain_access: ['*'] };
  const column = (c: ColumnConfig): ColumnConfig => ({
    ...c,
    ...(c.visible_to ? { visible_to: [...c.visible_to, SERVICE_ROLE_ID] } : {}),
    unmasked_to: [...c.unmasked_to, SERVICE_ROLE_ID],
  });
  return {
    ...model,
    tables: model.tables.map((t) => ({ ...t, columns: t.columns.map(column) })),
    roles: [...model.roles.filter((r) => r.id !== SERVICE_ROLE_ID), role],
    rls_rules: model.rls_rules.filter((r) => r.role_id !== SERVICE_ROLE_ID),
  };
}

/**
 * The governance catalog of the service role (build once per catalog epoch). MVs and derived views
 * are their own relations in it (as in the instance's catalog), so view_sql that reads one plans to
 * SQL over that relation, bound to a snapshot or to live view_sql when it runs.
 */
export function serviceCatalog(model: CatalogModel): GovernanceCatalog {
  return catalogFromConfig(serviceModel(model), { engineName: engineNameWithMvs });
}

/** An MV's view_sql as engine SQL, planned for the service role on the engine route. */
export function serviceViewSql(table: TableConfig, catalog: GovernanceCatalog): string {
  if (!table.view_sql || table.view_sql.trim() === '') {
    throw new ShoalError('MV_NO_VIEW_SQL', `MV ${qualifiedName(table)} has no view_sql`, {
      where: `tables.${table.table}.view_sql`,
      hint: 'a materialized table is defined by its view_sql over registered tables',
    });
  }
  try {
    return planQuery({ sql: table.view_sql, role: SERVICE_ROLE_ID }, catalog, { route: 'engine' }).sql;
  } catch (e) {
    if (e instanceof ShoalError) {
      throw new ShoalError(e.code, `view_sql of MV ${qualifiedName(table)}: ${e.message}`, {
        where: `tables.${table.table}.view_sql`,
        ...(e.hint ? { hint: e.hint } : {}),
        cause: e,
      });
    }
    throw e;
  }
}
