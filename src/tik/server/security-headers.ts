import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Headers on every answer of the replica. The browser UI loads only its own script and style
 * (no inline script, no framing, no referrer leaving the page); JSON and SVG answers cannot be
 * sniffed into HTML.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
});

/** An `onSend` hook setting `SECURITY_HEADERS`. */
export async function securityHeaders(_req: FastifyRequest, res: FastifyReply, payload: unknown): Promise<unknown> {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.header(name, value);
  return payload;
}
