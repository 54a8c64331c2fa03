import type { FastifyInstance } from 'fastify';

type Plugin = (app: FastifyInstance) => Promise<void>;

/**
 * Mark a plugin as app-wide: its hooks apply to every route, not only to routes it registers
 * itself. This is Fastify's documented `skip-override` property (what fastify-plugin sets), used
 * for the edge hooks (Host allow-list, CORS, audit) that must see every request.
 */
export function appWide(plugin: Plugin): Plugin {
  return Object.assign(plugin, { [Symbol.for('skip-override')]: true });
}
