import Fastify, { LogController, type FastifyError, type FastifyInstance } from 'fastify';
import type { SshPrivateKey } from '../../core/sshsig.js';
import { TikService } from '../app/tik-service.js';
import { WriterClock } from '../app/writer-clock.js';
import { openEffects, type EffectsOptions, type EffectsService } from '../effects/index.js';
import type { Instant } from '../edn/index.js';
import { randomUUID } from 'node:crypto';
import { isCodedError } from '../../core/errors.js';
import { ShardDirectory, SHARD_HEADER } from '../shard/shard-directory.js';
import { ownedUuid } from '../shard/owned-uuid.js';
import { ownsTicket, shardText, WHOLE, type ShardSpec } from '../shard/shard-spec.js';
import type { RecurScheduler } from '../recur/recur-scheduler.js';
import { ShardStore } from '../shard/shard-store.js';
import type { EventStore } from '../store/store.js';
import { httpTransport } from '../sync/http-transport.js';
import { effectiveRegister } from '../roles/effective-register.js';
import { AntiEntropy } from './anti-entropy.js';
import { apiRoutes } from './api-routes.js';
import { actorFilter } from './actor-admission.js';
import { authorizePeer, authorizePush, authorizeSyncRead, type Authorship } from './authorship.js';
import { boardPage } from './board-page.js';
import { securityHeaders } from './security-headers.js';
import { errorReply } from './error-reply.js';
import { hostGuard } from './host-guard.js';
import { SERVER_LIMITS, type ServerLimits } from './server-limits.js';
import { signedFilter } from './signed-admission.js';
import { guardSockets } from './socket-guard.js';
import { syncRoutes } from './sync-routes.js';
import type { SyncLimits } from '../sync/limits.js';
import { recurRunner, type RecurOptions } from './recur-runner.js';
import { ShardGateway } from './shard-gateway.js';
import { shardGuard, shardLocalRoutes } from './shard-routes.js';

export interface TikServerOptions {
  /** The store's root directory or `postgresql://` URL (what `tik --root` takes). */
  readonly root: string;
  /** The server's working directory (relative files such as effects.edn resolve here; default: `root`). */
  readonly cwd?: string;
  /** The same store, opened, for the sync endpoints. */
  readonly store: EventStore;
  /** TIK_NOW fixes the clock (tests). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Who may append through this replica (default `closed`: no API writes; docs/tik-sync.md#security). */
  readonly authorship?: Authorship;
  /** Host header values (names, without the port) this replica answers; default any. */
  readonly allowedHosts?: readonly string[];
  /** The replica's own actor and key: it signs only events naming that actor (its recurrences). */
  readonly self?: { readonly actor: string; readonly key?: SshPrivateKey };
  /** The epoch-ms clock (default the system clock; `TIK_NOW` in `env` overrides it). */
  readonly clock?: () => number;
  /** Peer base URLs for anti-entropy. */
  readonly peers?: readonly string[];
  /** The bearer token anti-entropy sends to its peers (`TIK_PEER_TOKEN`). */
  readonly peerToken?: string;
  /** Seconds between anti-entropy rounds. Default 10. */
  readonly intervalSeconds?: number;
  /** pino logging to stderr (default off; `tik serve` turns it on). */
  readonly logger?: boolean;
  /** Stage-reached webhooks through the shared delivery ledger (docs/tik-effects.md); `now` derives stages. */
  readonly effects?: EffectsOptions & { readonly now: () => Instant };
  /** The shard this replica holds (`--shard i/M`); default the whole ticket space. */
  readonly shard?: ShardSpec;
  /** Replicas of other shards (`--shard-peer`); each announces its shard on `/health`. */
  readonly shardPeers?: readonly string[];
  /** Recurrences to open on schedule (`recurrences.edn`, `--recur`); start with `startRecur()`. */
  readonly recur?: RecurOptions;
  /** Connection, body and transfer bounds (`SERVER_LIMITS` by default). */
  readonly limits?: Partial<ServerLimits>;
  /** Bounds on each anti-entropy session with a peer (`SYNC_LIMITS` by default). */
  readonly syncLimits?: Partial<SyncLimits>;
}

export interface TikServer {
  readonly app: FastifyInstance;
  readonly antiEntropy: AntiEntropy;
  /** The effect loop when `effects` was given (start it with `effects.start()`). */
  readonly effects: EffectsService | undefined;
  /** Present when the replica holds one shard of several. */
  readonly gateway?: ShardGateway;
  /** The recurrence scheduler when recurrences are configured (`tick()` fires due periods). */
  readonly recur: RecurScheduler | undefined;
  /** Starts ticking the recurrence scheduler (now, then every interval). */
  startRecur(): void;
  /** Begins a graceful shutdown: `/ready` answers 503 at once, everything else is still served. */
  drain(): void;
  /**
   * Stops anti-entropy (aborting sessions in flight) and the loops, stops listening, and lets
   * requests in flight finish for at most `graceMs` (default 5000) before closing their sockets.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * `tik serve`: a stateless, writable HTTP replica over one store — the read and write API, the
 * sync endpoints, `/health` and a board page — plus periodic anti-entropy with its peers. Every
 * read answers from the store as it is now, whatever wrote to it: a status read may come from the
 * status cache (app/status-cache.ts), which holds only while the ticket's event ids are unchanged.
 */
export async function buildTikServer(options: TikServerOptions): Promise<TikServer> {
  // Request logging is off: anti-entropy polls every few seconds; syncs that move data and errors are logged.
  const limits: ServerLimits = { ...SERVER_LIMITS, ...options.limits };
  const app = Fastify({
    logger: options.logger ? { level: 'info', stream: process.stderr } : false,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: limits.apiBodyBytes,
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // headersTimeout and requestTimeout are enforced by a sweep every connectionsCheckingInterval.
    http: { headersTimeout: limits.headersTimeoutMs, requestTimeout: limits.requestTimeoutMs, connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs) },
  });
  guardSockets(app.server, limits.maxSockets);
  const shard = options.shard ?? WHOLE;
  const sharded = shard.count > 1;
  // A sharded replica reconciles, serves and accepts only its shard's tickets, and opens only those.
  const store: EventStore = sharded ? new ShardStore(options.store, shard) : options.store;
  // One service per replica, over the store opened once: no re-open, no argv, no commander.
  const key = options.self?.key;
  const service = new TikService({
    store,
    clock: WriterClock.fromEnv(options.env ?? {}, options.clock ?? (() => Date.now())),
    mintId: sharded ? () => ownedUuid(shard) : () => randomUUID(),
    // status reads are served from the status cache while a ticket's listed event ids, its pin, the
    // register and the time window hold; `TIK_INDEX=off` derives every read from the log
    derivedIndex: options.env?.TIK_INDEX !== 'off',
    statusCheck: 'listing',
    ...(options.self && key ? { signer: { actor: options.self.actor, key } } : {}),
  });
  const authorship: Authorship = options.authorship ?? { mode: 'closed' };
  const hidden = [...new Set([options.root, options.store.location, options.cwd ?? options.root])];
  const peerAuth: Record<string, string> = options.peerToken ? { authorization: `Bearer ${options.peerToken}` } : {};
  const gateway = sharded ? new ShardGateway(service, store as ShardStore, new ShardDirectory(shard, [...new Set([...(options.shardPeers ?? []), ...(options.peers ?? [])])]), peerAuth) : undefined;
  // Every error answer has one shape: {error: {code, message, hint?}}; never a stack trace.
  app.setErrorHandler((err: FastifyError, _req, res) => {
    if (isCodedError(err)) {
      const r = errorReply(err, hidden);
      return res.code(r.status).send(r.body);
    }
    const status = err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) app.log.error(err);
    return res.code(status).send({
      error: status === 500 ? { code: 'server/internal', message: 'internal error', hint: 'see the replica’s log' } : { code: 'server/bad-request', message: err.message },
    });
  });
  // No route outside the API answers an unknown path with anything but a coded 404 (no help text, no paths).
  app.setNotFoundHandler((req, res) => res.code(404).send({ error: { code: 'server/not-found', message: `no route ${req.method} ${req.url.split('?')[0]!.slice(0, 200)}`, hint: 'see docs/tik-sync.md for the routes' } }));
  if (options.allowedHosts !== undefined) app.addHook('onRequest', hostGuard(options.allowedHosts));
  app.addHook('onSend', securityHeaders);
  app.addHook('onRequest', shardGuard(shard));
  // A push whose every new event is refused is answered 403; anti-entropy's pulls only report.
  const signedPush = authorship.mode === 'signed' ? signedFilter(store, 'error') : undefined;
  await app.register(
    syncRoutes(
      store,
      { limits },
      {
        authorizeRead: (req) => authorizeSyncRead(authorship, req),
        authorizePush: (req) => {
          const j = authorizePush(authorship, req);
          return j.judge === 'signed' ? signedPush : j.judge === 'actors' ? actorFilter(store, j.grant) : undefined;
        },
      },
    ),
  );
  await app.register(apiRoutes({ service, authorship, hidden, gateway }));
  if (gateway) await app.register(shardLocalRoutes(gateway, (req) => authorizePeer(authorship, req)));
  await app.register(boardPage());
  // The balancer's probe (always open, like /health): 503 once a graceful shutdown began.
  let draining = false;
  app.get('/ready', async (_req, res) => (draining ? res.code(503).send({ status: 'draining' }) : { status: 'ready' }));
  app.get('/health', async () => {
    const r = await effectiveRegister(store);
    const roles = { source: r.source, status: r.status, digest: r.digest ?? null, fileDiffers: r.fileDiffers, differsFrom: antiEntropy.peerHealth().filter((p) => p.roles?.verdict === 'differs').map((p) => p.url) };
    return { status: 'ok', store: options.store.kind, peers: options.peers ?? [], peerStatus: antiEntropy.peerHealth(), roles, shard: shardText(shard), shardPeers: options.shardPeers ?? [] };
  });
  const log = { info: (o: object, m: string) => app.log.info(o, m), warn: (o: object, m: string) => app.log.warn(o, m) };
  const headers: Record<string, string> = { ...(sharded ? { [SHARD_HEADER]: shardText(shard) } : {}), ...peerAuth };
  const antiEntropy = new AntiEntropy(store, options.peers ?? [], (options.intervalSeconds ?? 10) * 1000, log, (url, signal) => httpTransport(url, { headers, signal }), {
    ...(options.syncLimits ? { limits: options.syncLimits } : {}),
    headers,
    // The same per-event judgement as on push, for what this replica pulls from its peers.
    ...(authorship.mode === 'signed' ? { filter: signedFilter(store, 'report') } : {}),
  });
  const effects = options.effects ? await openEffects(options.effects, { store, now: options.effects.now, cwd: options.cwd ?? options.root, log }) : undefined;
  if (effects) await app.register(effects.routes);
  const recur = options.recur && options.recur.recurrences.length > 0 ? recurRunner(service, options.recur, sharded ? (t) => ownsTicket(shard, t) : undefined, log) : undefined;
  return {
    app,
    antiEntropy,
    ...(gateway ? { gateway } : {}),
    effects,
    recur: recur?.scheduler,
    startRecur: () => recur?.loop.start(),
    drain: () => {
      draining = true;
    },
    close: async (graceMs = 5000) => {
      const stopped = antiEntropy.stop();
      const closing = Promise.all([recur?.loop.stop(), effects?.close(), stopped]).then(() => app.close());
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((r) => (timer = setTimeout(r, graceMs)));
      await Promise.race([closing, grace]);
      clearTimeout(timer);
      // Past the grace, requests still in flight (a slow upload, a stuck handler) lose their sockets.
      app.server.closeAllConnections();
      await Promise.race([closing, new Promise((r) => setTimeout(r, 1000))]);
    },
  };
}
