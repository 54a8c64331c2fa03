/**
 * Role inheritance, flattened as upstream does at start-up (federation-fleet.md §6): a role inherits
 * from its `parent_role_id` chain; capabilities and domain access are unioned; `max_rows` is
 * inherited when unset, and the stricter (smaller) value wins when both are set.
 */
import { ShoalError } from '../errors.js';
import { deepFreeze, type Capability, type RoleConfig } from './model.js';

export interface ResolvedRole {
  readonly id: string;
  /** The role itself first, then its ancestors, nearest first. */
  readonly lineage: readonly string[];
  readonly capabilities: readonly Capability[];
  /** Domain ids, or `['*']` when any role in the lineage has access to every domain. */
  readonly domain_access: readonly string[];
  readonly max_rows?: number;
}

/** Flatten one role. Throws ShoalError ROLE_UNKNOWN / ROLE_CYCLE. */
export function resolveRole(roles: readonly RoleConfig[], id: string): ResolvedRole {
  const byId = new Map(roles.map((r) => [r.id, r]));
  const lineage: string[] = [];
  const capabilities = new Set<Capability>();
  const domains = new Set<string>();
  let maxRows: number | undefined;
  let current: string | undefined = id;
  while (current !== undefined) {
    const role = byId.get(current);
    if (!role) {
      const what = lineage.length === 0 ? `unknown role "${current}"` : `role "${lineage.at(-1)}" has unknown parent role "${current}"`;
      throw new ShoalError('ROLE_UNKNOWN', what, { hint: `known roles: ${[...byId.keys()].sort().join(', ') || '(none)'}` });
    }
    if (lineage.includes(current)) {
      throw new ShoalError('ROLE_CYCLE', `role inheritance cycle: ${[...lineage, current].join(' -> ')}`, {
        hint: 'remove one parent_role_id so the chain ends',
      });
    }
    lineage.push(current);
    for (const c of role.capabilities) capabilities.add(c);
    for (const d of role.domain_access) domains.add(d);
    if (role.max_rows !== undefined) maxRows = maxRows === undefined ? role.max_rows : Math.min(maxRows, role.max_rows);
    current = role.parent_role_id;
  }
  const domain_access = domains.has('*') ? ['*'] : [...domains].sort();
  return deepFreeze({
    id,
    lineage,
    capabilities: [...capabilities].sort(),
    domain_access,
    ...(maxRows === undefined ? {} : { max_rows: maxRows }),
  });
}

/** Flatten every role; throws on the first unknown parent or cycle. */
export function resolveRoles(roles: readonly RoleConfig[]): ReadonlyMap<string, ResolvedRole> {
  return new Map(roles.map((r) => [r.id, resolveRole(roles, r.id)]));
}

/** Whether a flattened role may read tables of a domain. */
export function canAccessDomain(role: ResolvedRole, domainId: string): boolean {
  return role.domain_access.includes('*') || role.domain_access.includes(domainId);
}
