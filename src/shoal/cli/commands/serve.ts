import { InvalidArgumentError, type Command } from 'commander';
import { onShutdownSignals, secondsToMs } from '../../../core/graceful-shutdown.js';
import { AUTH_OFF_WARNING } from '../../auth/edge-auth.js';
import { ShoalError } from '../../errors.js';
import { adminPlugin } from '../../server/admin-plugin.js';
import { buildApp } from '../../server/app.js';
import { credentialAdminPlugin } from '../../server/credential-admin-plugin.js';
import { mvAdminPlugin } from '../../server/mv-admin-plugin.js';
import { AuditQueue } from '../../audit/audit-queue.js';
import { SqlAuditStore } from '../../audit/audit-store.js';
import { newInstanceId } from '../../audit/instance-id.js';
import { EMBEDDED_REGISTRY_URL } from '../../instance/instance.js';
import { auditAdminPlugin } from '../../server/audit-admin-plugin.js';
import { readTlsFiles } from '../../server/tls-files.js';
import { createPgServer } from '../../pgwire/pg-server.js';
import { ConcurrencyLimit } from '../../server/concurrency-limit.js';
import { DEFAULT_LIMITS } from '../../config/limits.js';
import { readInstanceConfig, startInstance } from './open-instance.js';

const seconds = (max: number) => (v: string): number => {
  const ms = secondsToMs(v, max);
  if (ms === undefined) throw new InvalidArgumentError(`expected a number of seconds between 0 and ${max}`);
  return ms;
};

/**
 * `shoal serve --config FILE [--port P] [--host H]`: the HTTP data API over one instance. Starting
 * an instance deploys its file as the catalog's owner says (`control_plane.catalog`; see
 * ShoalInstance's importConfig).
 */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run an instance: POST /data/sql, /health, /ready, /live, /metrics, and the /admin API; with --pg-port, the PostgreSQL wire protocol too')
    .requiredOption('--config <file>', "the YAML config file; with control_plane.catalog: config (the default) its catalog is applied to the registry at start (as `shoal registry apply`), with registry it only seeds an empty registry")
    .option('--port <port>', 'port to listen on', (v) => Number.parseInt(v, 10), 8000)
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--poll-ms <ms>', 'registry epoch poll interval', (v) => Number.parseInt(v, 10), 2000)
    .option('--pg-port <port>', 'also speak the PostgreSQL wire protocol on this port (same host, same governed path; see docs/shoal.md, PostgreSQL clients)', (v) => Number.parseInt(v, 10))
    .option('--pg-insecure-password', 'accept a PostgreSQL client\'s password over a connection that is neither TLS nor loopback')
    .option('--drain-delay <seconds>', 'after SIGTERM, /ready answers 503 and queries are still served this long before the listener closes (so a balancer notices)', seconds(3600), 2000)
    .option('--shutdown-grace <seconds>', 'after SIGTERM, exit within this many seconds whatever is still running (drain included)', seconds(3600), 30_000)
    .action(async (opts: { config: string; port: number; host: string; pollMs: number; pgPort?: number; pgInsecurePassword?: boolean; drainDelay: number; shutdownGrace: number }) => {
      const loaded = readInstanceConfig(opts.config);
      const server = loaded.config.stateful.server;
      // read the certificate before anything starts: a bad server.tls never serves plain HTTP
      const tls = server.tls ? readTlsFiles(server.tls, loaded.baseDir) : undefined;
      const instance = await startInstance(loaded, { pollMs: opts.pollMs });
      // the audit log lives in the registry's database: one log for the fleet
      const auditConfig = loaded.config.stateful.audit;
      const auditStore = auditConfig.enabled
        ? await SqlAuditStore.open(loaded.config.stateful.control_plane.tenant_url ?? EMBEDDED_REGISTRY_URL, instance.registry.identity, { baseDir: loaded.baseDir })
        : undefined;
      const queue = auditStore
        ? new AuditQueue(auditStore, {
            capacity: auditConfig.queue_size,
            batchSize: auditConfig.batch_size,
            metrics: instance.metrics,
            onError: (e) => process.stderr.write(`shoal: audit log write failed (kept and retried): ${(e as Error).message}\n`),
          })
        : undefined;
      const auth = instance.auth;
      if (!auth) throw new ShoalError('INTERNAL_AUTH', 'the instance started without an authenticator');
      const instanceId = newInstanceId();
      // one set of per-principal query slots for HTTP and the PostgreSQL port
      const concurrency = new ConcurrencyLimit(instance.maxConcurrentQueries ?? DEFAULT_LIMITS.max_concurrent_queries);
      const app = await buildApp({
        concurrency,
        service: instance,
        server,
        bindHost: opts.host,
        ...(tls ? { tls } : {}),
        audit: { instanceId, ...(queue ? { sink: queue } : {}) },
        logger: { level: process.env.SHOAL_LOG_LEVEL ?? 'info' },
        plugins: [
          adminPlugin(instance),
          mvAdminPlugin(instance),
          credentialAdminPlugin(auth),
          auditAdminPlugin({ registry: instance.registry, ...(auditStore && queue ? { audit: { store: auditStore, queue } } : {}) }),
        ],
      });
      if (auth.authenticator.provider === 'none') {
        app.log.warn(AUTH_OFF_WARNING);
        process.stderr.write(`shoal: WARNING: ${AUTH_OFF_WARNING}\n`);
      }
      const pg =
        opts.pgPort === undefined
          ? undefined
          : createPgServer({
              context: { service: instance, auth, concurrency, audit: { instanceId, ...(queue ? { sink: queue } : {}), log: (r) => app.log.info({ audit: r }, 'audit') } },
              ...(tls ? { tls } : {}),
              insecurePassword: opts.pgInsecurePassword ?? false,
            });
      // SIGTERM: /ready 503, drain, close the listener, finish requests in flight, flush the audit
      // queue, stop the MV loop (a refresh in flight completes and its commit releases the lease;
      // one cut off by the grace is left to expire), exit 0 — all within --shutdown-grace.
      onShutdownSignals({
        drainMs: opts.drainDelay,
        graceMs: opts.shutdownGrace,
        drain: () => instance.drain(),
        close: async () => {
          // a keep-alive connection whose request was in flight turns idle only once it is
          // answered; close such connections as they go idle, or the close waits for their timeout
          const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
          await pg?.close().catch(() => undefined);
          await app.close().finally(() => clearInterval(sweep));
          await queue?.close();
          await auditStore?.close().catch(() => undefined);
          await instance.close();
        },
        log: (m) => process.stderr.write(`shoal: ${m}\n`),
      });
      // the PostgreSQL port first: once /ready answers, both protocols are served
      const pgPort = pg && opts.pgPort !== undefined ? await pg.listen(opts.pgPort, opts.host) : undefined;
      if (pgPort !== undefined) process.stderr.write(`shoal: PostgreSQL protocol on ${opts.host}:${pgPort}\n`);
      const address = await app.listen({ port: opts.port, host: opts.host });
      process.stderr.write(`shoal: serving on ${address} (registry epoch ${instance.epoch ?? '?'}, auth: ${auth.authenticator.provider})\n`);
    });
}
