import type { Command } from 'commander';
import { adminPlugin } from '../../server/admin-plugin.js';
import { buildApp } from '../../server/app.js';
import { mvAdminPlugin } from '../../server/mv-admin-plugin.js';
import { readTlsFiles } from '../../server/tls-files.js';
import { readInstanceConfig, startInstance } from './open-instance.js';

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
      const loaded = readInstanceConfig(opts.config);
      const server = loaded.config.stateful.server;
      // read the certificate before anything starts: a bad server.tls never serves plain HTTP
      const tls = server.tls ? readTlsFiles(server.tls, loaded.baseDir) : undefined;
      const instance = await startInstance(loaded, { pollMs: opts.pollMs });
      const app = await buildApp({
        service: instance,
        server,
        bindHost: opts.host,
        ...(tls ? { tls } : {}),
        logger: { level: process.env.SHOAL_LOG_LEVEL ?? 'info' },
        plugins: [adminPlugin(instance), mvAdminPlugin(instance)],
      });
      const shutdown = async (): Promise<void> => {
        await app.close().catch(() => undefined);
        await instance.close();
        process.exit(0);
      };
      process.once('SIGINT', () => void shutdown());
      process.once('SIGTERM', () => void shutdown());
      const address = await app.listen({ port: opts.port, host: opts.host });
      process.stderr.write(`shoal: serving on ${address} (registry epoch ${instance.epoch ?? '?'})\n`);
    });
}
