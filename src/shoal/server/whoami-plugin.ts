/**
 * `GET /auth/whoami`: who the credentials are and which roles they may act as, with each role's
 * capabilities — what a client (the console) needs to offer a role choice and to know whether
 * the admin panels apply. Only the caller's own roles are listed (a `*` principal — the operator,
 * `provider: none` — may take every registered role).
 */
import type { FastifyInstance } from 'fastify';
import type { EdgeAuth } from '../auth/edge-auth.js';
import { resolveRole } from '../config/roles.js';
import { principalOf } from './request-principal.js';

export const WHOAMI_PATH = '/auth/whoami';

export function whoamiPlugin(auth: EdgeAuth) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.get(WHOAMI_PATH, async (req) => {
      const principal = principalOf(req);
      const registered = await auth.roles();
      const ids = principal.roles === '*' ? registered.map((r) => r.id) : principal.roles;
      const roles = [...ids].sort().map((id) => {
        // a granted role that is not registered (or whose parent chain is broken) can do nothing
        if (!registered.some((r) => r.id === id)) return { id, capabilities: [] };
        try {
          return { id, capabilities: [...resolveRole(registered, id).capabilities].sort() };
        } catch {
          return { id, capabilities: [] };
        }
      });
      return { id: principal.id, kind: principal.kind, default_role: principal.defaultRole ?? null, roles };
    });
  };
}
