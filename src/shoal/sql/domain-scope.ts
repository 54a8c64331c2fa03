import type { GovernanceCatalog } from './catalog.js';

/**
 * The catalog as seen by an identity whose role is assigned on some domains only (upstream's
 * `role_id:domain_id` claims): a table outside those domains is not readable, so governance
 * reports it exactly as a missing table (SQL_UNKNOWN_TABLE, suggestions only from readable
 * tables) instead of telling the caller it exists.
 */
export function limitToDomains(catalog: GovernanceCatalog, domains: readonly string[]): GovernanceCatalog {
  const allowed = new Set(domains.map((d) => d.toLowerCase()));
  const inScope = (tableKey: string) => allowed.has(tableKey.slice(0, tableKey.indexOf('.')).toLowerCase());
  return {
    resolveTable: (parts) => catalog.resolveTable(parts),
    tableKeys: () => catalog.tableKeys(),
    role: (roleId) => catalog.role(roleId),
    canAccess: (roleId, tableKey) => inScope(tableKey) && catalog.canAccess(roleId, tableKey),
    visibleColumns: (roleId, tableKey) => catalog.visibleColumns(roleId, tableKey),
    mask: (roleId, tableKey, column) => catalog.mask(roleId, tableKey, column),
    rowFilters: (roleId, tableKey) => catalog.rowFilters(roleId, tableKey),
  };
}
