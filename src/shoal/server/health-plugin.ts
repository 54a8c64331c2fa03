import type { FastifyInstance } from 'fastify';
import type { MetricsRegistry } from './metrics.js';
import type { QueryService } from './query-service.js';

/** `/health`, `/live`, `/ready`, `/metrics`: unauthenticated, as upstream. */
export function healthPlugin(service: QueryService, metrics: MetricsRegistry) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.get('/live', async () => ({ status: 'ok' }));
    app.get('/ready', async (_req, reply) => {
      if (service.isReady()) return { status: 'ready' };
      return reply.code(503).send({ status: 'warming' });
    });
    app.get('/health', async (_req, reply) => {
      const h = await service.health();
      return reply.code(h.status === 'ok' ? 200 : 503).send(h);
    });
    app.get('/metrics', async (_req, reply) => {
      reply.header('content-type', 'text/plain; version=0.0.4; charset=utf-8');
      return metrics.render();
    });
  };
}
