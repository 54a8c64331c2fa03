/**
 * What a verified OIDC identity is granted: roles from its role claim (`role` or upstream's
 * `role_id:domain_id`), from the config's `role_mapping` rules (a claim equal to `value`, or a
 * list claim that `contains` a value), `default_assignments`, and `default_role` when nothing
 * else granted one; session values from the claims `session_vars` names. A pure function of the
 * claims and the config.
 */
import type { AuthConfig, RoleAssignment } from '../config/auth-config.js';
import { deepFreeze } from '../config/model.js';

export interface Grants {
  readonly roles: readonly string[];
  readonly defaultRole?: string;
  /** role → the only domains it may be used on (absent: every domain the role itself reaches). */
  readonly scopes: Readonly<Record<string, readonly string[]>>;
  readonly vars: Readonly<Record<string, string>>;
}

/** A claim by name, or by dotted path into nested objects (`custom_claims.role`). */
export function claimAt(claims: Readonly<Record<string, unknown>>, path: string): unknown {
  if (Object.hasOwn(claims, path)) return claims[path];
  let v: unknown = claims;
  for (const part of path.split('.')) {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, part)) return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/** `analyst:sales` → {analyst, sales}; a bare `analyst` is every domain (upstream splits on the first colon). */
export function parseAssignment(value: string): RoleAssignment | undefined {
  const v = value.trim();
  if (v === '') return undefined;
  const i = v.indexOf(':');
  if (i < 0) return { role_id: v, domain_id: '*' };
  const role_id = v.slice(0, i).trim();
  const domain_id = v.slice(i + 1).trim() || '*';
  return role_id === '' ? undefined : { role_id, domain_id };
}

const scalar = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);

export function grantsFromClaims(claims: Readonly<Record<string, unknown>>, auth: AuthConfig): Grants {
  const assignments: RoleAssignment[] = [];
  let firstMapped: string | undefined;
  for (const rule of auth.role_mapping) {
    const v = claimAt(claims, rule.claim);
    const hit = rule.value !== undefined ? scalar(v) === rule.value : Array.isArray(v) && v.some((x) => scalar(x) === rule.contains);
    if (!hit) continue;
    firstMapped ??= rule.provisa_role;
    assignments.push({ role_id: rule.provisa_role, domain_id: '*' });
  }
  const claimed = claimAt(claims, auth.oidc?.role_claim ?? 'roles');
  const fromClaim = (Array.isArray(claimed) ? claimed : claimed === undefined ? [] : [claimed])
    .map(scalar)
    .filter((x): x is string => x !== undefined)
    .map(parseAssignment)
    .filter((a): a is RoleAssignment => a !== undefined);
  assignments.push(...fromClaim);
  if (assignments.length === 0 && auth.default_role !== undefined) assignments.push({ role_id: auth.default_role, domain_id: '*' });
  assignments.push(...auth.default_assignments);
  const vars: Record<string, string> = {};
  for (const sv of auth.session_vars) {
    if (sv.claim === undefined) continue;
    const v = scalar(claimAt(claims, sv.claim));
    if (v !== undefined) vars[sv.name] = v;
  }
  const defaultRole = firstMapped ?? (fromClaim.length === 0 ? auth.default_role : undefined) ?? fromClaim[0]?.role_id ?? assignments[0]?.role_id;
  return deepFreeze({ ...rolesAndScopes(assignments), ...(defaultRole === undefined ? {} : { defaultRole }), vars });
}

/** Union assignments per role; a role assigned on `'*'` anywhere is not limited. */
export function rolesAndScopes(assignments: readonly RoleAssignment[]): Pick<Grants, 'roles' | 'scopes'> {
  const domains = new Map<string, Set<string>>();
  for (const a of assignments) {
    const set = domains.get(a.role_id) ?? new Set<string>();
    set.add(a.domain_id);
    domains.set(a.role_id, set);
  }
  const scopes: Record<string, string[]> = {};
  for (const [role, set] of domains) if (!set.has('*')) scopes[role] = [...set].sort();
  return { roles: [...domains.keys()], scopes };
}
