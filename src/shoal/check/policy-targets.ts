/**
 * Which tables each RLS rule governs, as the pipeline applies them (model.ts `rlsFiltersFor`): a
 * table rule governs its table; a domain rule governs every table of its domain for which that
 * role has no table rule of its own.
 */
import { qualifiedName, tableId, type CatalogModel, type RlsRuleConfig, type TableConfig } from '../config/model.js';

export interface RuleTarget {
  /** Index in `rls_rules` (the key path is `rls_rules[ruleIndex]`). */
  readonly ruleIndex: number;
  readonly rule: RlsRuleConfig;
  /** Index in `tables`. */
  readonly tableIndex: number;
  readonly table: TableConfig;
}

export function ruleTargets(catalog: CatalogModel): RuleTarget[] {
  const out: RuleTarget[] = [];
  catalog.rls_rules.forEach((rule, ruleIndex) => {
    catalog.tables.forEach((table, tableIndex) => {
      const id = tableId(table);
      const governs =
        rule.table_id !== undefined
          ? rule.table_id === id
          : rule.domain_id === table.domain_id && !catalog.rls_rules.some((r) => r.role_id === rule.role_id && r.table_id === id);
      if (governs) out.push({ ruleIndex, rule, tableIndex, table });
    });
  });
  return out;
}

/** How an issue names a rule: `RLS on sales.orders for role analyst` (the domain, for a domain rule). */
export function ruleSubject(rule: RlsRuleConfig): string {
  return rule.table_id !== undefined ? `table ${rule.table_id}, role ${rule.role_id}` : `domain ${rule.domain_id ?? '?'}, role ${rule.role_id}`;
}

/**
 * Names the rule an RLS filter of a table comes from, for runtime errors: by what identifies it in
 * a config file and in the registry alike, `(table_id: orders, role_id: analyst)` (list positions
 * differ between the two). The role may be an ancestor of the querying role.
 */
export function ruleNamer(catalog: CatalogModel): (tableKey: string, filter: string) => string | undefined {
  const targets = ruleTargets(catalog);
  return (tableKey, filter) => {
    const hit = targets.find((x) => x.rule.filter === filter && qualifiedName(x.table).toLowerCase() === tableKey);
    if (hit === undefined) return undefined;
    const r = hit.rule;
    return r.table_id !== undefined ? `(table_id: ${r.table_id}, role_id: ${r.role_id})` : `(domain_id: ${r.domain_id ?? '?'}, role_id: ${r.role_id})`;
  };
}
