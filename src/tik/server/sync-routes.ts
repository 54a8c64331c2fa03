import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CodedError } from '../../core/errors.js';
import { ShardStore } from '../shard/shard-store.js';
import type { EventStore } from '../store/store.js';
import { decodeBundle } from '../sync/bundle.js';
import { SYNC_PATHS } from '../sync/http-transport.js';
import { SyncResponder } from '../sync/responder.js';
import type { ReconcileOptions } from '../sync/reconciler.js';
import { outcomeOf } from '../app/error-table.js';
import { encodeBundle } from '../sync/bundle.js';
import { admitSigned } from './signed-admission.js';

/** Who may sync: `authorize` throws a coded error to refuse; `admitSigned` judges pushed events by their signatures. */
export interface SyncGuard {
  readonly authorize?: (req: FastifyRequest) => void;
  readonly admitSigned?: boolean;
}

/** The largest sync request body a replica accepts (a push bundle). */
export const SYNC_BODY_LIMIT = 512 * 1024 * 1024;

/** Sync error codes that are the peer's fault (400); anything else is ours (500). */
const PEER_FAULT = /^sync\/(truncated|bad-message|bad-bundle|refused|version|too-large|bad-id|bad-ticket)$/;

/**
 * `POST /sync/v1/reconcile|fetch|push` (application/octet-stream): the stateless responder side
 * of sync. Byte layouts: docs/tik-sync.md.
 */
export function syncRoutes(store: EventStore, options: ReconcileOptions = {}, guard: SyncGuard = {}) {
  const responder = new SyncResponder(store, { frameSizeLimit: 1 << 20, ...options });
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer', bodyLimit: SYNC_BODY_LIMIT }, (_req, body, done) => done(null, body));
    const handle = async (res: FastifyReply, f: () => Promise<Uint8Array | object>, req?: FastifyRequest): Promise<unknown> => {
      try {
        if (req && guard.authorize) guard.authorize(req);
        const out = await f();
        if (out instanceof Uint8Array) return res.type('application/octet-stream').send(Buffer.from(out.buffer, out.byteOffset, out.length));
        return res.send(out);
      } catch (e) {
        if (e instanceof CodedError) {
          const status = e.code.startsWith('auth/') ? outcomeOf(e.code).http : PEER_FAULT.test(e.code) ? 400 : 500;
          return res.code(status).send({ error: { code: e.code, message: e.message, ...(e.hint ? { hint: e.hint } : {}) } });
        }
        throw e;
      }
    };
    const bodyOf = (b: unknown): Uint8Array => (b instanceof Uint8Array ? b : new Uint8Array(0));
    app.post(SYNC_PATHS.reconcile, (req, res) => handle(res, () => responder.reconcile(bodyOf(req.body)), req));
    app.post(SYNC_PATHS.fetch, (req, res) => handle(res, () => responder.fetch(bodyOf(req.body)), req));
    app.post(SYNC_PATHS.push, (req, res) =>
      handle(
        res,
        async () => {
          if (store instanceof ShardStore) store.admitBundle(decodeBundle(bodyOf(req.body)));
          if (!guard.admitSigned) return responder.push(bodyOf(req.body));
          // Judge each event by its signature; push on only what is admitted, and say what was not.
          const { bundle, refused } = await admitSigned(store, decodeBundle(bodyOf(req.body)));
          const summary = await responder.push(refused.length === 0 ? bodyOf(req.body) : encodeBundle(bundle));
          return refused.length === 0 ? summary : { ...summary, refused };
        },
        req,
      ),
    );
  };
}
