import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { openEffects, type EffectsOptions, type EffectsService } from '../effects/index.js';
import type { Instant } from '../edn/index.js';
import type { EventStore } from '../store/store.js';
import { AntiEntropy } from './anti-entropy.js';
import { apiRoutes } from './api-routes.js';
import { boardPage } from './board-page.js';
import { syncRoutes } from './sync-routes.js';
import { SYNC_BODY_LIMIT } from './sync-routes.js';
import type { VerbEnv } from './run-verb.js';

export interface TikServerOptions {
  /** The store's root directory or `postgresql://` URL (what `tik --root` takes). */
  readonly root: string;
  /** Working directory for the in-process verbs (default: `root`). */
  readonly cwd?: string;
  /** The same store, opened, for the sync endpoints. */
  readonly store: EventStore;
  /** Passed to the in-process verbs: TIK_KEY signs writes; TIK_NOW fixes the clock (tests). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Peer base URLs for anti-entropy. */
  readonly peers?: readonly string[];
  /** Seconds between anti-entropy rounds. Default 10. */
  readonly intervalSeconds?: number;
  /** pino logging to stderr (default off; `tik serve` turns it on). */
  readonly logger?: boolean;
  /** Stage-reached webhooks through the shared delivery ledger (docs/tik-effects.md); `now` derives stages. */
  readonly effects?: EffectsOptions & { readonly now: () => Instant };
}

export interface TikServer {
  readonly app: FastifyInstance;
  readonly antiEntropy: AntiEntropy;
  /** The effect loop when `effects` was given (start it with `effects.start()`). */
  readonly effects: EffectsService | undefined;
  close(): Promise<void>;
}

/**
 * `tik serve`: a stateless, writable HTTP replica over one store — the read and write API, the
 * sync endpoints, `/health` and a board page — plus periodic anti-entropy with its peers. It keeps
 * no cache: every read derives from the store as it is now, whatever wrote to it.
 */
export async function buildTikServer(options: TikServerOptions): Promise<TikServer> {
  // Request logging is off: anti-entropy polls every few seconds; syncs that move data and errors are logged.
  const app = Fastify({ logger: options.logger ? { level: 'info', stream: process.stderr } : false, disableRequestLogging: true, bodyLimit: SYNC_BODY_LIMIT });
  const v: VerbEnv = { root: options.root, ...(options.cwd !== undefined ? { cwd: options.cwd } : {}), env: options.env ?? {} };
  // Every error answer has one shape: {error: {code, message, hint?}}; never a stack trace.
  app.setErrorHandler((err: FastifyError, _req, res) => {
    const status = err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) app.log.error(err);
    return res.code(status).send({
      error: status === 500 ? { code: 'server/internal', message: 'internal error', hint: 'see the replica’s log' } : { code: 'server/bad-request', message: err.message },
    });
  });
  await app.register(syncRoutes(options.store));
  await app.register(apiRoutes(v));
  await app.register(boardPage(v));
  app.get('/health', async () => ({ status: 'ok', store: options.store.kind, peers: options.peers ?? [] }));
  const log = { info: (o: object, m: string) => app.log.info(o, m), warn: (o: object, m: string) => app.log.warn(o, m) };
  const antiEntropy = new AntiEntropy(options.store, options.peers ?? [], (options.intervalSeconds ?? 10) * 1000, log);
  const effects = options.effects ? await openEffects(options.effects, { store: options.store, now: options.effects.now, cwd: options.cwd ?? options.root, log }) : undefined;
  if (effects) await app.register(effects.routes);
  return {
    app,
    antiEntropy,
    effects,
    close: async () => {
      await effects?.close();
      await antiEntropy.stop();
      await app.close();
    },
  };
}
