/**
 * The key a request is counted under for per-principal limits: the authenticated principal's id,
 * or one shared `anonymous` id when no principal is attached (`auth.provider: none`, or before the
 * authentication hook is installed).
 */
import type { FastifyRequest } from 'fastify';
import '../auth/principal.js';

export const ANONYMOUS_PRINCIPAL_ID = 'anonymous';

export function principalIdOf(req: FastifyRequest): string {
  return req.principal?.id ?? ANONYMOUS_PRINCIPAL_ID;
}
