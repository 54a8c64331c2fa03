import Fastify, { type FastifyInstance } from 'fastify';
import { isCodedError } from '../../core/errors.js';
import { newInstanceId } from '../audit/instance-id.js';
import { createAuthenticator } from '../auth/authenticator.js';
import type { EdgeAuth } from '../auth/edge-auth.js';
import { DEFAULT_AUTH } from '../config/auth-config.js';
import { DEFAULT_LIMITS } from '../config/limits.js';
import type { ServerConfig } from '../config/server-config.js';
import { auditPlugin, type AuditSink } from './audit-plugin.js';
import { corsPlugin } from './cors-plugin.js';
import { hostAllowList } from './host-allow-list.js';
import { hostPlugin } from './host-plugin.js';
import type { TlsMaterial } from './tls-files.js';
import { catalogPlugin } from './catalog-plugin.js';
import { CONSOLE_PATHS, consolePlugin } from './console/console-plugin.js';
import { ConcurrencyLimit } from './concurrency-limit.js';
import { dataPlugin } from './data-plugin.js';
import { graphqlPlugin } from './graphql/graphql-plugin.js';
import { OPENAPI_PATH, openApiPlugin } from './openapi/openapi-plugin.js';
import { errorBody, httpStatusFor } from './error-status.js';
import { healthPlugin } from './health-plugin.js';
import { MetricsRegistry, declareCacheMetrics } from './metrics.js';
import type { QueryService } from './query-service.js';
import { whoamiPlugin } from './whoami-plugin.js';

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
  /** Serve HTTPS with this certificate and key (`server.tls`); plain HTTP when absent. */
  readonly tls?: TlsMaterial;
  /** The transport policy (`server:` in the config): Host allow-list and CORS. Default: none configured. */
  readonly server?: ServerConfig;
  /** The address `serve` binds; a specific one joins the default Host allow-list. */
  readonly bindHost?: string;
  /** The per-principal query slots (`max_concurrent_queries`), when other listeners (pgwire) share them; default: the app's own. */
  readonly concurrency?: ConcurrencyLimit;
  /** Where audit records go (the audit_log queue) and this instance's id in them; default: log lines only. */
  readonly audit?: { readonly sink?: AuditSink; readonly instanceId?: string };
}

/**
 * Load-balancer probes, the API's description and the console's static files: answered without
 * credentials (they reveal no data). Keyed `METHOD path`, reading only: a route another method
 * adds on one of these paths needs credentials like every other.
 */
export const PUBLIC_ROUTES: ReadonlySet<string> = new Set(
  ['/health', '/ready', '/live', OPENAPI_PATH, ...CONSOLE_PATHS].flatMap((path) => [`GET ${path}`, `HEAD ${path}`]),
);

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
  const base = { logger: opts.logger ?? false, bodyLimit: 4 * 1024 * 1024 };
  // an https server is a Fastify instance like any other once built; only the listener differs
  const app = (opts.tls ? Fastify({ ...base, https: { cert: opts.tls.cert, key: opts.tls.key } }) : Fastify(base)) as unknown as FastifyInstance;
  app.decorate('shoalMetrics', metrics);
  const auth = opts.auth ?? opts.service.auth ?? LOCKED;
  app.decorateRequest('principal', undefined);
  // the error handler first: routes the edge plugins add (the CORS preflight) take it when registered
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
  // the edge, in this order, before authentication. The audit hook must stay the FIRST onRequest
  // hook: a hook that throws (Host refused, credentials refused) ends the chain, and the refusal
  // must be recorded. Then the Host allow-list (a wrong Host is refused before credentials are
  // looked at), then CORS (a preflight carries no credentials).
  // first: it describes every route registered after it (GET /openapi.json)
  await app.register(openApiPlugin('1'));
  const server = opts.server ?? {};
  await app.register(auditPlugin({ instanceId: opts.audit?.instanceId ?? newInstanceId(), ...(opts.audit?.sink ? { sink: opts.audit.sink } : {}) }));
  await app.register(hostPlugin(hostAllowList(server, opts.bindHost)));
  if (server.cors) await app.register(corsPlugin(server.cors));
  // onRequest runs before the body is read: an unauthenticated client can't make us parse 4 MiB
  app.addHook('onRequest', async (req, reply) => {
    const route = req.routeOptions.url;
    if (route !== undefined && PUBLIC_ROUTES.has(`${req.method} ${route}`)) return;
    try {
      const h = req.headers.authorization;
      req.principal = await auth.authenticator.authenticate(Array.isArray(h) ? h[0] : h);
    } catch (e) {
      // one header line per scheme (RFC 9110 allows either form; separate lines parse unambiguously)
      if (isCodedError(e) && httpStatusFor(e) === 401) void reply.header('www-authenticate', [...auth.authenticator.challenges]);
      throw e;
    }
  });
  await app.register(healthPlugin(opts.service, metrics, auth.authenticator.provider));
  // one per-principal query limit for SQL, GraphQL and the instance's other listeners (pgwire)
  const concurrency = opts.concurrency ?? new ConcurrencyLimit(opts.service.maxConcurrentQueries ?? DEFAULT_LIMITS.max_concurrent_queries);
  await app.register(dataPlugin(opts.service, metrics, auth, concurrency));
  await app.register(catalogPlugin(opts.service, auth));
  await app.register(whoamiPlugin(auth));
  await app.register(consolePlugin());
  await app.register(graphqlPlugin(opts.service, metrics, auth, concurrency));
  for (const p of opts.plugins ?? []) await app.register(p);
  return app;
}
