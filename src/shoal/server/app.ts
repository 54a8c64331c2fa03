import Fastify, { type FastifyInstance } from 'fastify';
import { isCodedError } from '../../core/errors.js';
import { createAuthenticator } from '../auth/authenticator.js';
import type { EdgeAuth } from '../auth/edge-auth.js';
import { DEFAULT_AUTH } from '../config/auth-config.js';
import { dataPlugin } from './data-plugin.js';
import { errorBody, httpStatusFor } from './error-status.js';
import { healthPlugin } from './health-plugin.js';
import { MetricsRegistry, declareCacheMetrics } from './metrics.js';
import type { QueryService } from './query-service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The instance's `/metrics` registry, so plugins (the MV admin API) can report series into it. */
    readonly shoalMetrics: MetricsRegistry;
  }
}

export interface AppOptions {
  readonly service: QueryService;
  readonly metrics?: MetricsRegistry;
  /** pino logger options, or false to disable request logging (tests). */
  readonly logger?: boolean | object;
  /**
   * How requests are authenticated; default `service.auth`. With neither, every authenticated
   * route answers 401 (fail closed: no way to present a credential that verifies).
   */
  readonly auth?: EdgeAuth;
  /** Extra plugins (e.g. the admin API) registered after the data and health routes. */
  readonly plugins?: readonly ((app: FastifyInstance) => Promise<void>)[];
}

/** Load-balancer probes: answered without credentials (they reveal no data). */
export const PUBLIC_ROUTES: ReadonlySet<string> = new Set(['/health', '/ready', '/live']);

const LOCKED: EdgeAuth = {
  authenticator: createAuthenticator({ auth: DEFAULT_AUTH }),
  config: DEFAULT_AUTH,
  roles: async () => [],
};

/**
 * The HTTP face of one instance: a Fastify plugin per concern, one error mapping, and one
 * authentication hook in front of every route but the probes (law S7).
 */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const metrics = opts.metrics ?? opts.service.metrics ?? new MetricsRegistry();
  declareCacheMetrics(metrics, 'result');
  declareCacheMetrics(metrics, 'hot');
  const app = Fastify({ logger: opts.logger ?? false, bodyLimit: 4 * 1024 * 1024 });
  app.decorate('shoalMetrics', metrics);
  const auth = opts.auth ?? opts.service.auth ?? LOCKED;
  app.decorateRequest('principal', undefined);
  // onRequest runs before the body is read: an unauthenticated client can't make us parse 4 MiB
  app.addHook('onRequest', async (req, reply) => {
    const route = req.routeOptions.url;
    if (route !== undefined && PUBLIC_ROUTES.has(route)) return;
    try {
      const h = req.headers.authorization;
      req.principal = await auth.authenticator.authenticate(Array.isArray(h) ? h[0] : h);
    } catch (e) {
      // one header line per scheme (RFC 9110 allows either form; separate lines parse unambiguously)
      if (isCodedError(e) && httpStatusFor(e) === 401) void reply.header('www-authenticate', [...auth.authenticator.challenges]);
      throw e;
    }
  });
  app.setErrorHandler((err, req, reply) => {
    if (!isCodedError(err)) {
      // Fastify's own client errors (body validation, malformed JSON, media type) keep their 4xx.
      const status = (err as { statusCode?: number }).statusCode;
      if (typeof status === 'number' && status >= 400 && status < 500) {
        metrics.inc('shoal_errors_total', { status: String(status) });
        return reply.code(status).send({ error: { code: 'BAD_REQUEST', message: (err as Error).message } });
      }
    }
    const status = httpStatusFor(err);
    if (status >= 500) req.log.error({ err }, 'request failed');
    metrics.inc('shoal_errors_total', { status: String(status) });
    return reply.code(status).send(errorBody(err));
  });
  await app.register(healthPlugin(opts.service, metrics, auth.authenticator.provider));
  await app.register(dataPlugin(opts.service, metrics, auth));
  for (const p of opts.plugins ?? []) await app.register(p);
  return app;
}
