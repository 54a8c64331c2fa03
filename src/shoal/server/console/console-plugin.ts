/**
 * The console (`GET /`, its script and stylesheet): static text from this module, answered
 * without credentials because it holds no data — the page signs in with the API's own credentials
 * and reads everything through the API. Strict headers: scripts and styles only from this origin
 * (no inline ones), no framing, no referrer, no MIME sniffing. The Host allow-list and CORS apply
 * as to every route.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { CONSOLE_HTML } from './console-page.js';
import { CONSOLE_JS } from './console-script.js';
import { CONSOLE_CSS } from './console-style.js';

export const CONSOLE_ASSETS: Readonly<Record<string, { readonly type: string; readonly body: string }>> = {
  '/': { type: 'text/html; charset=utf-8', body: CONSOLE_HTML },
  '/console/app.js': { type: 'text/javascript; charset=utf-8', body: CONSOLE_JS },
  '/console/style.css': { type: 'text/css; charset=utf-8', body: CONSOLE_CSS },
};

/** The console's routes: public like the probes (they reveal nothing). */
export const CONSOLE_PATHS: readonly string[] = Object.keys(CONSOLE_ASSETS);

export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function secure(reply: FastifyReply): void {
  reply.header('content-security-policy', CONSOLE_CSP);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('x-frame-options', 'DENY');
  reply.header('referrer-policy', 'no-referrer');
  reply.header('cross-origin-opener-policy', 'same-origin');
  // a new server version must not run against a cached old script
  reply.header('cache-control', 'no-cache');
}

export function consolePlugin() {
  return async function plugin(app: FastifyInstance): Promise<void> {
    for (const [path, asset] of Object.entries(CONSOLE_ASSETS)) {
      app.get(path, async (_req, reply) => {
        secure(reply);
        return reply.type(asset.type).send(asset.body);
      });
    }
  };
}
