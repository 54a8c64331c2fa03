import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CorsConfig } from '../config/server-config.js';
import { ShoalError } from '../errors.js';
import { appWide } from './app-wide.js';

/**
 * CORS, only when `server.cors` is configured. Without it no response carries an
 * Access-Control-* header and a preflight (OPTIONS) is not answered, so a browser page on another
 * origin can read nothing. With it, a request from a listed origin gets that origin echoed back
 * (never `*` when a list is given), and a preflight from a listed origin for a listed method is
 * answered 204; a preflight from any other origin is refused (403 CORS_NOT_ALLOWED, no CORS headers).
 */
export function corsPlugin(cors: CorsConfig) {
  const any = cors.origins.includes('*');
  const allowed = (origin: string | undefined): origin is string => origin !== undefined && (any || cors.origins.includes(origin.toLowerCase()));
  const setOrigin = (reply: FastifyReply, origin: string): void => {
    reply.header('access-control-allow-origin', any && !cors.credentials ? '*' : origin);
    if (cors.credentials) reply.header('access-control-allow-credentials', 'true');
  };
  return appWide(async function plugin(app: FastifyInstance): Promise<void> {
    app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
      const origin = req.headers.origin;
      reply.header('vary', 'Origin');
      const method = req.headers['access-control-request-method'];
      if (req.method === 'OPTIONS' && method !== undefined) {
        // a preflight carries no credentials: it is answered here, before authentication runs
        if (!allowed(origin) || typeof method !== 'string' || !cors.methods.includes(method.toUpperCase())) {
          throw new ShoalError('CORS_NOT_ALLOWED', 'this cross-origin request is not allowed', {
            hint: "the page's origin and the method must be listed in server.cors (origins, methods)",
          });
        }
        setOrigin(reply, origin);
        reply.header('access-control-allow-methods', cors.methods.join(', '));
        reply.header('access-control-allow-headers', cors.headers.join(', '));
        reply.header('access-control-max-age', String(cors.max_age));
        return reply.code(204).send();
      }
      if (!allowed(origin)) return;
      setOrigin(reply, origin);
      if (cors.expose_headers.length > 0) reply.header('access-control-expose-headers', cors.expose_headers.join(', '));
    });
  });
}
