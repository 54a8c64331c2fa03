/**
 * Route-side helpers over the principal the authentication hook (app.ts) attached: who is asking,
 * which role they asked for, and the admin check every `/admin` route makes.
 */
import type { FastifyRequest } from 'fastify';
import { actingRole } from '../auth/acting-role.js';
import type { Principal } from '../auth/principal.js';
import type { RoleConfig } from '../config/model.js';
import type { ResolvedRole } from '../config/roles.js';
import { ShoalError } from '../errors.js';

/** The authenticated principal; a route reached without one fails closed (401). */
export function principalOf(req: FastifyRequest): Principal {
  if (!req.principal) throw new ShoalError('AUTH_REQUIRED', 'this request needs credentials', { hint: 'send Authorization: Bearer <token>' });
  return req.principal;
}

/** The role named by `X-Provisa-Role` (first value), if any. */
export function headerRole(req: FastifyRequest): string | undefined {
  const h = req.headers['x-provisa-role'];
  const v = Array.isArray(h) ? h[0] : h;
  return v === undefined || v === '' ? undefined : v;
}

/** Refuse unless the principal acts (by `X-Provisa-Role` or its default role) as a role with `admin`. */
export function requireAdmin(req: FastifyRequest, roles: readonly RoleConfig[]): ResolvedRole {
  return actingRole(principalOf(req), headerRole(req), roles, 'admin');
}
