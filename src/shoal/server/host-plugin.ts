import type { FastifyInstance } from 'fastify';
import { ShoalError } from '../errors.js';
import { appWide } from './app-wide.js';
import type { HostAllowList } from './host-allow-list.js';
import { PROBE_PATHS, pathOf } from './probe-paths.js';

/** What a refusal may echo of the client's Host header: printable ASCII, bounded. */
const shown = (host: string | undefined): string => (host === undefined ? '(none)' : `"${host.replace(/[^\x20-\x7e]/g, '?').slice(0, 80)}"`);

/**
 * The Host allow-list at the edge: a request whose Host header is not on the list is refused with
 * 421 HOST_NOT_ALLOWED before anything else runs. The probes (`/live`, `/ready`, `/health`,
 * `/metrics`) answer on any Host, because orchestrators call them by address.
 */
export function hostPlugin(list: HostAllowList) {
  return appWide(async function plugin(app: FastifyInstance): Promise<void> {
    app.addHook('onRequest', async (req) => {
      if (PROBE_PATHS.has(pathOf(req.url))) return;
      const host = req.headers.host;
      if (list.allows(host)) return;
      throw new ShoalError('HOST_NOT_ALLOWED', `Host ${shown(host)} is not one this server answers to`, {
        hint: 'reach the server by a name listed in server.allowed_hosts (or add the name there, or set server.hostname)',
      });
    });
  });
}
