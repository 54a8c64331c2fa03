import type { Command } from 'commander';
import { AUTH_OFF_WARNING } from '../../auth/edge-auth.js';
import { ShoalError } from '../../errors.js';
import { adminPlugin } from '../../server/admin-plugin.js';
import { buildApp } from '../../server/app.js';
import { credentialAdminPlugin } from '../../server/credential-admin-plugin.js';
import { mvAdminPlugin } from '../../server/mv-admin-plugin.js';
import { openInstance } from './open-instance.js';

/** `shoal serve --config FILE [--port P] [--host H]`: the HTTP data API over one instance. */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run an instance: POST /data/sql, /health, /ready, /live, /metrics, and the /admin API')
    .requiredOption('--config <file>', 'the YAML config file')
    .option('--port <port>', 'port to listen on', (v) => Number.parseInt(v, 10), 8000)
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--poll-ms <ms>', 'registry epoch poll interval', (v) => Number.parseInt(v, 10), 2000)
    .action(async (opts: { config: string; port: number; host: string; pollMs: number }) => {
      const instance = await openInstance(opts.config, { pollMs: opts.pollMs });
      const auth = instance.auth;
      if (!auth) throw new ShoalError('INTERNAL_AUTH', 'the instance started without an authenticator');
      const app = await buildApp({
        service: instance,
        logger: { level: process.env.SHOAL_LOG_LEVEL ?? 'info' },
        plugins: [adminPlugin(instance), mvAdminPlugin(instance), credentialAdminPlugin(auth)],
      });
      if (auth.authenticator.provider === 'none') {
        app.log.warn(AUTH_OFF_WARNING);
        process.stderr.write(`shoal: WARNING: ${AUTH_OFF_WARNING}\n`);
      }
      const shutdown = async (): Promise<void> => {
        await app.close().catch(() => undefined);
        await instance.close();
        process.exit(0);
      };
      process.once('SIGINT', () => void shutdown());
      process.once('SIGTERM', () => void shutdown());
      const address = await app.listen({ port: opts.port, host: opts.host });
      process.stderr.write(`shoal: serving on ${address} (registry epoch ${instance.epoch ?? '?'}, auth: ${auth.authenticator.provider})\n`);
    });
}
