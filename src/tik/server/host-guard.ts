import type { FastifyReply, FastifyRequest } from 'fastify';

/** The host name of a Host header, lower-cased, without the port (`[::1]:7777` → `[::1]`). */
export function hostName(header: string | undefined): string | undefined {
  if (header === undefined || header === '') return undefined;
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end > 0 ? h.slice(0, end + 1) : undefined;
  }
  const colon = h.indexOf(':');
  return colon >= 0 ? h.slice(0, colon) : h;
}

/**
 * An `onRequest` hook answering only requests whose Host is one of `allowed` (names without the
 * port): a browser page on another site that resolves its own name to this replica's address
 * (DNS rebinding) is refused before any route runs.
 */
export function hostGuard(allowed: readonly string[]) {
  const names = new Set(allowed.map((a) => a.trim().toLowerCase()));
  return async (req: FastifyRequest, res: FastifyReply): Promise<void> => {
    const name = hostName(req.headers.host);
    if (name !== undefined && names.has(name)) return;
    await res.code(421).send({ error: { code: 'server/bad-host', message: `this replica does not answer for host ${JSON.stringify(String(req.headers.host ?? '').slice(0, 100))}`, hint: 'use a host name the operator allowed (tik serve --allow-host NAME)' } });
  };
}
