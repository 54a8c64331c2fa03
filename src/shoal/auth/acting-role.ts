/**
 * Which role a request acts as, and whether that role may do what the route does. A principal
 * only ever chooses among the roles it was granted (`X-Provisa-Role` or the body's `role` picks
 * one; none picks its default role). Refusals name the principal's own roles, never the
 * registered ones it was not granted.
 */
import type { Capability, RoleConfig } from '../config/model.js';
import { resolveRole, type ResolvedRole } from '../config/roles.js';
import { ShoalError } from '../errors.js';
import type { Principal } from './principal.js';

const own = (p: Principal, roles: readonly RoleConfig[]): string =>
  p.roles === '*' ? roles.map((r) => r.id).sort().join(', ') || '(no roles registered)' : [...p.roles].sort().join(', ') || '(none)';

/**
 * The role to act as; throws ROLE_REQUIRED (400), ROLE_NOT_GRANTED / ROLE_UNKNOWN /
 * CAPABILITY_MISSING (403). `admin` grants every capability (upstream).
 */
export function actingRole(principal: Principal, requested: string | undefined, roles: readonly RoleConfig[], capability: Capability): ResolvedRole {
  const roleId = requested ?? principal.defaultRole;
  if (roleId === undefined) {
    throw new ShoalError('ROLE_REQUIRED', 'no role given and this identity has no default role', { hint: `name one of your roles in X-Provisa-Role or "role": ${own(principal, roles)}` });
  }
  if (principal.roles !== '*' && !principal.roles.includes(roleId)) {
    throw new ShoalError('ROLE_NOT_GRANTED', `role "${roleId}" is not granted to ${principal.id}`, { hint: `act as one of your roles: ${own(principal, roles)}` });
  }
  if (!roles.some((r) => r.id === roleId)) {
    throw new ShoalError('ROLE_UNKNOWN', `role "${roleId}" is not registered`, { hint: `act as one of your roles: ${own(principal, roles)}` });
  }
  let role: ResolvedRole;
  try {
    role = resolveRole(roles, roleId);
  } catch (e) {
    // resolveRole's own hint lists every registered role: not for this caller's eyes
    throw new ShoalError(e instanceof ShoalError ? e.code : 'ROLE_UNKNOWN', `role "${roleId}" cannot be resolved (its parent chain is broken)`, { hint: 'ask an admin to fix the role definition' });
  }
  if (!role.capabilities.includes(capability) && !role.capabilities.includes('admin')) {
    throw new ShoalError('CAPABILITY_MISSING', `role "${roleId}" lacks the ${capability} capability`, {
      hint: capability === 'admin' ? 'act as a role whose capabilities include admin' : `act as a role with ${capability} (your roles: ${own(principal, roles)})`,
    });
  }
  return role;
}
