/**
 * Hot tables on the engine route (federation-fleet.md §5.4, law S5). Governance has already
 * replaced every reference to a registered table by a governed subquery over a placeholder
 * relation; here a hot table's placeholder is bound to the engine-resident table holding its
 * cached rows (engine/resident-tables.ts) instead of the live engine relation. The governed subquery — visible columns, masks, RLS filters — wraps the cached rows
 * exactly as it wraps the live relation, so both answer alike.
 *
 * No caller can reach the resident table directly: a table reference in the caller's SQL must
 * name a registered table (else SQL_UNKNOWN_TABLE), and every caller CTE is renamed `__cte_<n>`
 * before this step (CTE hygiene), so a caller CTE named like a hot relation or like the table
 * binds to nothing of ours. The direct route never inlines: the source holds the table itself.
 */
import type { CatalogTable } from './catalog.js';
import type { GovernedStatement } from './govern.js';

/** The engine name parts of the relation a hot table is cached as for this query, or undefined to read it live. */
export type HotRelationOf = (tableKey: string) => readonly string[] | undefined;

/** `gov` with hot tables' placeholders bound to their cached relation, and the keys bound. */
export function bindHotTables(gov: GovernedStatement, relationOf: HotRelationOf): { readonly gov: GovernedStatement; readonly inlined: readonly string[] } {
  const inlined: string[] = [];
  const placeholders = new Map<string, CatalogTable>();
  for (const [ph, table] of gov.placeholders) {
    const relation = relationOf(table.tableKey);
    if (relation === undefined) {
      placeholders.set(ph, table);
      continue;
    }
    inlined.push(table.tableKey);
    placeholders.set(ph, { ...table, engineName: relation });
  }
  return inlined.length === 0 ? { gov, inlined } : { gov: { ...gov, placeholders }, inlined };
}
