import type { FastifyReply, FastifyRequest } from 'fastify';
import { ShoalError } from '../errors.js';
import type { ConcurrencyLimit } from './concurrency-limit.js';
import { principalIdOf } from './principal-id.js';

/**
 * Take one of the principal's query slots (`server.limits.max_concurrent_queries`) for a data
 * request, or refuse it with 429 and `Retry-After`. Returns the release function.
 */
export function takeQuerySlot(concurrency: ConcurrencyLimit, req: FastifyRequest, reply: FastifyReply): () => void {
  const release = concurrency.tryAcquire(principalIdOf(req));
  if (release === undefined) {
    reply.header('retry-after', '1');
    throw new ShoalError('TOO_MANY_CONCURRENT_QUERIES', `this principal already has ${concurrency.max} queries running on this instance`, {
      hint: 'wait for a running query to finish (see Retry-After), or ask the operator about server.limits.max_concurrent_queries',
    });
  }
  return release;
}
