import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { CodedError } from '../../core/errors.js';
import { TikError } from '../errors.js';
import { ShardStore } from '../shard/shard-store.js';
import type { EventStore } from '../store/store.js';
import type { Bundle } from '../sync/bundle.js';
import { acceptsGzipBundle, BUNDLE_ENCODING, BUNDLE_ENCODING_HEADER, gzipBundle } from '../sync/bundle-encoding.js';
import { SYNC_PATHS } from '../sync/http-transport.js';
import { SYNC_LIMITS } from '../sync/limits.js';
import { SyncResponder } from '../sync/responder.js';
import type { ReceiveFilter } from '../sync/receive-bundle.js';
import type { ReconcileOptions } from '../sync/reconciler.js';
import { readBody } from './read-body.js';
import { RequestBudget } from './request-budget.js';
import { SERVER_LIMITS, type ServerLimits } from './server-limits.js';
import { BoundedGate } from '../../core/bounded-gate.js';
import { outcomeOf } from '../app/error-table.js';

/**
 * Who may sync (docs/tik-sync.md#security). `authorizeRead` guards reconcile and fetch;
 * `authorizePush` guards push and returns the filter that judges the pushed events (undefined:
 * admitted as sent, after the bundle check). Each throws a coded error to refuse, before the
 * body is read. Without a guard every call is open (tests of the transfer limits).
 */
export interface SyncGuard {
  readonly authorizeRead?: (req: FastifyRequest) => void;
  readonly authorizePush?: (req: FastifyRequest) => ReceiveFilter | undefined;
}

/** The largest sync request body a replica accepts (a push bundle). */
export const SYNC_BODY_LIMIT = SYNC_LIMITS.bundleBytes;

/** Sync error codes that are the peer's fault (400); anything else is ours (500). */
const PEER_FAULT = /^sync\/(truncated|bad-message|bad-bundle|refused|version|bad-id|bad-ticket)$/;
const STATUS: Readonly<Record<string, number>> = { 'sync/too-large': 413, 'sync/length-required': 411, 'sync/rate-limited': 429, 'sync/busy': 503, 'sync/push-busy': 503 };

/**
 * `POST /sync/v1/reconcile|fetch|push` (application/octet-stream): the stateless responder side
 * of sync. Byte layouts: docs/tik-sync.md. Every body is read while it streams and refused past
 * its limit; pushes and fetches pass a gate (`limits.transfers` at once, a bounded queue), so the
 * memory they hold is bounded whatever their size; each client address may drive at most
 * `limits.reconcilePerMinute` reconciliation rounds.
 */
export function syncRoutes(store: EventStore, options: ReconcileOptions & { readonly limits?: Partial<ServerLimits> } = {}, guard: SyncGuard = {}) {
  const limits = { ...SERVER_LIMITS, ...options.limits };
  const responder = new SyncResponder(store, { frameSizeLimit: 1 << 20, ...options, limits: { bundleBytes: limits.bundleBytes } });
  const gate = new BoundedGate(limits.transfers, limits.transferQueue);
  const pushGate = new BoundedGate(limits.pushes, limits.transferQueue);
  const budget = new RequestBudget(limits.reconcilePerMinute, 60_000);
  return async function plugin(app: FastifyInstance): Promise<void> {
    // The body stays a stream: each route reads it under its own limit.
    app.addContentTypeParser('application/octet-stream', (_req, payload, done) => done(null, payload));
    const handle = async (res: FastifyReply, f: () => Promise<Uint8Array | object>): Promise<unknown> => {
      try {
        const out = await f();
        if (out instanceof Uint8Array) return await res.type('application/octet-stream').send(Buffer.from(out.buffer, out.byteOffset, out.length));
        return await res.send(out);
      } catch (e) {
        if (e instanceof CodedError) {
          const status = e.code.startsWith('auth/') ? outcomeOf(e.code).http : (STATUS[e.code] ?? (PEER_FAULT.test(e.code) ? 400 : 500));
          if (status === 413 || status === 411 || status === 503 || status === 429 || status === 401 || status === 403) {
            // Do not read the rest of a refused body: answer, then drop the connection.
            res.header('connection', 'close');
            res.raw.once('finish', () => res.request.raw.destroy());
            if (status === 503 || status === 429) res.header('retry-after', '5');
          }
          return res.code(status).send({ error: { code: e.code, message: e.message, ...(e.hint ? { hint: e.hint } : {}) } });
        }
        throw e;
      }
    };
    const body = (req: FastifyRequest, max: number, what: string, check?: (head: Uint8Array) => void, requireLength = false): Promise<Uint8Array> => {
      const stream = req.body as Readable | undefined;
      if (stream === undefined || typeof (stream as { pipe?: unknown }).pipe !== 'function') return Promise.resolve(new Uint8Array(0));
      return readBody(stream, req.headers['content-length'], max, what, check, requireLength);
    };
    const gated = async <T>(f: () => Promise<T>, push = false): Promise<T> => {
      const release = await (push ? pushGate : gate).tryAcquire();
      if (release === undefined && push) throw new TikError('sync/push-busy', `this replica is already admitting ${limits.pushes} push(es) with ${limits.transferQueue} waiting`, { where: 'sync push', hint: 'retry later (Retry-After); the limit is tik serve --max-pushes' });
      if (release === undefined) throw new TikError('sync/busy', `this replica is already handling ${limits.transfers + limits.transferQueue} sync transfers`, { where: 'sync transfer', hint: 'retry later (Retry-After)' });
      try {
        return await f();
      } finally {
        release();
      }
    };
    app.post(SYNC_PATHS.reconcile, (req, res) =>
      handle(res, async () => {
        guard.authorizeRead?.(req);
        if (!budget.take(req.ip)) throw new TikError('sync/rate-limited', `${req.ip} drove more than ${limits.reconcilePerMinute} reconciliation rounds in a minute`, { where: 'reconcile', hint: 'an honest sync needs few rounds; retry later' });
        return responder.reconcile(await body(req, SYNC_LIMITS.reconcileBytes, 'a reconciliation message'));
      }),
    );
    app.post(SYNC_PATHS.fetch, (req, res) =>
      handle(res, () => {
        guard.authorizeRead?.(req);
        return gated(async () => {
          const bundle = await responder.fetch(await body(req, 10 + 32 * SYNC_LIMITS.fetchIds, 'a fetch request'));
          // only for an initiator that asked (bundle-encoding.ts: older initiators cannot decode)
          if (!acceptsGzipBundle(req.headers[BUNDLE_ENCODING_HEADER])) return bundle;
          const packed = await gzipBundle(bundle);
          res.header('content-encoding', BUNDLE_ENCODING);
          return packed;
        });
      }),
    );
    app.post(SYNC_PATHS.push, (req, res) =>
      handle(res, () => {
        // A push is a write: who sent it decides how its events are judged (or refuses it unread).
        const filter = guard.authorizePush?.(req);
        // The gate is taken before the body is read: a waiting push is held by TCP backpressure, not in memory.
        return gated(async () => {
          const stream = req.body as Readable | undefined;
          const empty = (async function* () {})();
          const source: AsyncIterable<Uint8Array> = stream !== undefined && typeof (stream as { pipe?: unknown }).pipe === 'function' ? stream : empty;
          // Streamed: records are admitted group by group as they arrive, so a push of any size
          // holds at most one group (docs/tik-sync.md, "Streamed push"). Under `signed` or a
          // person's token, each event is judged; the summary names what was refused.
          return responder.pushStream(source, {
            ...(filter ? { filter } : {}),
            ...(store instanceof ShardStore ? { onGroup: (g: Bundle) => store.admitBundle(g) } : {}),
            maxGroupBytes: limits.bundleBytes,
          });
        }, true);
      }),
    );
  };
}
