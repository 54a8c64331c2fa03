/**
 * `GET /data/catalog[?role=R]`: the tables and columns the caller's role may query, with their
 * declared types and whether the role reads them masked — the same answer `information_schema`
 * gives that role (hidden tables and columns are absent, as they are to queries). It needs the
 * `query_development` capability, as `POST /data/sql` does, not `admin`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { actingRole } from '../auth/acting-role.js';
import type { EdgeAuth } from '../auth/edge-auth.js';
import { ShoalError } from '../errors.js';
import type { QueryService } from './query-service.js';
import { headerRole, principalOf } from './request-principal.js';

const querySchema = {
  type: 'object',
  additionalProperties: false,
  properties: { role: { type: 'string', minLength: 1 } },
} as const;

export function catalogPlugin(service: QueryService, auth: EdgeAuth) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.get('/data/catalog', { schema: { querystring: querySchema } }, async (req: FastifyRequest<{ Querystring: { role?: string } }>) => {
      if (!service.isReady()) throw new ShoalError('NOT_READY', 'the engine catalog is still being built', { hint: 'retry when /ready returns 200' });
      const principal = principalOf(req);
      const role = actingRole(principal, req.query.role ?? headerRole(req), await auth.roles(), 'query_development');
      if (!service.catalog) throw new ShoalError('NOT_FOUND', 'this service has no catalog', { hint: 'query information_schema instead' });
      const domains = principal.scopes?.[role.id];
      const c = service.catalog({ role: role.id, ...(domains ? { domains } : {}) });
      return { role: role.id, epoch: c.epoch ?? null, tables: c.tables };
    });
  };
}
