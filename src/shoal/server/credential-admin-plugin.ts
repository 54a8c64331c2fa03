/**
 * The credential admin API, for principals acting as a role with `admin`:
 *
 * - `GET    /admin/tokens`         every access token, without its secret (or the secret's hash);
 * - `POST   /admin/tokens`         `{name, roles, default_role?, vars?, expires_at? | expires_in_days?}`
 *                                  → the token's record and `token`: its secret, shown this once;
 * - `DELETE /admin/tokens/:id`     revoke (404 when unknown or already revoked);
 * - `GET    /admin/users`, `POST /admin/users` `{username, password, roles, default_role?, vars?}`,
 *   `DELETE /admin/users/:username`: basic users (passwords are hashed, never returned).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { addUser, issueToken, publicToken, publicUser } from '../auth/credential-admin.js';
import type { EdgeAuth } from '../auth/edge-auth.js';
import { ShoalError } from '../errors.js';
import type { IdentityStore } from '../registry/identity-store.js';
import { principalOf, requireAdmin } from './request-principal.js';

const name = { type: 'string', minLength: 1, maxLength: 128 } as const;
const grants = {
  roles: { type: 'array', minItems: 1, maxItems: 64, items: name },
  default_role: name,
  vars: { type: 'object', maxProperties: 64, additionalProperties: { type: 'string', maxLength: 4096 } },
} as const;

const tokenBody = {
  type: 'object',
  required: ['name', 'roles'],
  additionalProperties: false,
  properties: { name: { type: 'string', minLength: 1, maxLength: 100 }, ...grants, expires_at: { type: 'string', maxLength: 64 }, expires_in_days: { type: 'integer', minimum: 1, maximum: 3660 } },
} as const;

const userBody = {
  type: 'object',
  required: ['username', 'password', 'roles'],
  additionalProperties: false,
  properties: { username: name, password: { type: 'string', minLength: 8, maxLength: 1024 }, ...grants },
} as const;

interface TokenBody {
  name: string;
  roles: string[];
  default_role?: string;
  vars?: Record<string, string>;
  expires_at?: string;
  expires_in_days?: number;
}

interface UserBody {
  username: string;
  password: string;
  roles: string[];
  default_role?: string;
  vars?: Record<string, string>;
}

const DAY_MS = 86_400_000;

export function credentialAdminPlugin(auth: EdgeAuth) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    const admin = async (req: FastifyRequest): Promise<IdentityStore> => {
      const roles = await auth.roles();
      requireAdmin(req, roles);
      if (!auth.store) throw new ShoalError('NOT_READY', 'this instance has no users and tokens store', { hint: 'serve from a config with a registry' });
      return auth.store;
    };

    app.get('/admin/tokens', async (req) => ({ tokens: (await (await admin(req)).listTokens()).map(publicToken) }));
    app.post('/admin/tokens', { schema: { body: tokenBody } }, async (req: FastifyRequest<{ Body: TokenBody }>, reply) => {
      const store = await admin(req);
      const b = req.body;
      if (b.expires_at !== undefined && b.expires_in_days !== undefined) throw new ShoalError('BAD_REQUEST', 'give expires_at or expires_in_days, not both', { where: 'expires_at' });
      const now = new Date();
      const expiresAt = b.expires_in_days !== undefined ? new Date(now.getTime() + b.expires_in_days * DAY_MS).toISOString() : b.expires_at;
      const { token, secret } = await issueToken(
        store,
        { name: b.name, roles: b.roles, ...(b.default_role ? { defaultRole: b.default_role } : {}), ...(b.vars ? { vars: b.vars } : {}), ...(expiresAt ? { expiresAt } : {}), createdBy: principalOf(req).id },
        await auth.roles(),
        now,
      );
      reply.header('cache-control', 'no-store');
      return reply.code(201).send({ ...publicToken(token), token: secret });
    });
    app.delete('/admin/tokens/:id', async (req: FastifyRequest<{ Params: { id: string } }>) => {
      const store = await admin(req);
      if (!(await store.revokeToken(req.params.id, new Date().toISOString()))) throw new ShoalError('NOT_FOUND', `no live token "${req.params.id}"`, { hint: 'GET /admin/tokens lists the tokens' });
      return { id: req.params.id, revoked: true };
    });

    app.get('/admin/users', async (req) => ({ users: (await (await admin(req)).listUsers()).map(publicUser) }));
    app.post('/admin/users', { schema: { body: userBody } }, async (req: FastifyRequest<{ Body: UserBody }>, reply) => {
      const store = await admin(req);
      const b = req.body;
      const user = await addUser(store, { username: b.username, password: b.password, roles: b.roles, ...(b.default_role ? { defaultRole: b.default_role } : {}), ...(b.vars ? { vars: b.vars } : {}) }, await auth.roles());
      return reply.code(201).send(publicUser(user));
    });
    app.delete('/admin/users/:username', async (req: FastifyRequest<{ Params: { username: string } }>) => {
      const store = await admin(req);
      if (!(await store.removeUser(req.params.username))) throw new ShoalError('NOT_FOUND', `no user "${req.params.username}"`, { hint: 'GET /admin/users lists the users' });
      return { username: req.params.username, removed: true };
    });
  };
}
