import type { FastifyInstance } from 'fastify';
import { AUTH_OFF_WARNING } from '../auth/edge-auth.js';
import type { AuthProvider } from '../config/auth-config.js';
import { monitorEventLoopLag } from './event-loop-lag.js';
import type { MetricsRegistry } from './metrics.js';
import type { QueryService } from './query-service.js';

/**
 * `/health`, `/live`, `/ready` (unauthenticated probes, as upstream) and `/metrics` (behind
 * authentication like every other route: its series name tables and MVs). `/health` says how
 * callers are authenticated, and warns when they are not.
 */
export function healthPlugin(service: QueryService, metrics: MetricsRegistry, provider: AuthProvider) {
  const auth = provider === 'none' ? { provider, warning: AUTH_OFF_WARNING } : { provider };
  return async function plugin(app: FastifyInstance): Promise<void> {
    const stopLag = monitorEventLoopLag(metrics);
    app.addHook('onClose', async () => stopLag());
    app.get('/live', async () => ({ status: 'ok' }));
    app.get('/ready', async (_req, reply) => {
      if (service.isDraining?.()) return reply.code(503).send({ status: 'draining' });
      if (service.isReady()) return { status: 'ready' };
      return reply.code(503).send({ status: 'warming' });
    });
    app.get('/health', async (_req, reply) => {
      const h = await service.health();
      return reply.code(h.status === 'ok' ? 200 : 503).send({ ...h, auth });
    });
    app.get('/metrics', async (_req, reply) => {
      reply.header('content-type', 'text/plain; version=0.0.4; charset=utf-8');
      return metrics.render();
    });
  };
}
