import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SHARD_HEADER } from '../shard/shard-directory.js';
import { parseShardSpec, sameShard, shardText, WHOLE, type ShardSpec } from '../shard/shard-spec.js';
import { SYNC_PATHS } from '../sync/http-transport.js';
import { SHARD_PATHS, type Answer, type ShardGateway } from './shard-gateway.js';

const SYNC_PREFIX = SYNC_PATHS.reconcile.slice(0, SYNC_PATHS.reconcile.lastIndexOf('/') + 1);

/** Sends an `Answer` as it is. */
export function sendAnswer(res: FastifyReply, a: Answer): FastifyReply {
  return res.code(a.status).type(a.contentType).send(a.body);
}

/**
 * The shard check every request passes. A sync request names its sender's shard in `x-tik-shard`
 * (absent means unsharded, `0/1`) and is refused (409 `sync/shard-mismatch`) unless it is this
 * replica's: two replicas of different shard configurations never reconcile, since their sets
 * would never agree. Any other request carrying `x-tik-shard` names the shard its sender expects
 * to reach and is refused (409 `shard/mismatch`) by a replica of another shard.
 */
export function shardGuard(self: ShardSpec) {
  return async (req: FastifyRequest, res: FastifyReply): Promise<void> => {
    const header = req.headers[SHARD_HEADER];
    const text = Array.isArray(header) ? header[0] : header;
    const isSync = req.url.startsWith(SYNC_PREFIX);
    if (text === undefined && !isSync) return;
    let theirs: ShardSpec;
    try {
      theirs = text === undefined ? WHOLE : parseShardSpec(text, SHARD_HEADER);
    } catch {
      theirs = { index: -1, count: -1 };
    }
    if (sameShard(theirs, self)) return;
    const code = isSync ? 'sync/shard-mismatch' : 'shard/mismatch';
    const message = isSync
      ? `this replica holds shard ${shardText(self)} and refuses to sync with a peer of shard ${text ?? '0/1 (unsharded)'}`
      : `this replica holds shard ${shardText(self)}, not ${text}`;
    await res.code(409).send({
      error: { code, message, hint: isSync ? `sync only replicas started with the same --shard (here ${shardText(self)})` : 'the sender re-learns the shard map from /health' },
    });
  };
}

/**
 * This shard's halves of the cross-ticket lenses, asked for by a gathering replica:
 * `GET /shard/v1/ls?now=MS[&all=true]` (ls rows), `GET /shard/v1/next?now=MS[&actor=A&role=R]`
 * (per-ticket inbox contributions), `GET /shard/v1/resolve?prefix=P` (matching ticket ids).
 * `now` is the gatherer's instant, so every shard derives at the same time.
 */
export function shardLocalRoutes(gw: ShardGateway, authorize: (req: FastifyRequest) => void = () => undefined) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    // Gathering replicas are peers: under a tokens policy they present a sync token (TIK_PEER_TOKEN).
    app.addHook('onRequest', async (req) => authorize(req));
    const nowOf = (q: { now?: string }): number => {
      const n = Number(q.now);
      return q.now !== undefined && Number.isSafeInteger(n) ? n : gw.nowMs();
    };
    app.get<{ Querystring: { now?: string; all?: string } }>(SHARD_PATHS.ls, async (req, res) => sendAnswer(res, await gw.localLs(req.query.all === 'true', nowOf(req.query))));
    app.get<{ Querystring: { now?: string; actor?: string; role?: string } }>(SHARD_PATHS.next, async (req, res) =>
      sendAnswer(res, await gw.localNext(nowOf(req.query), { ...(req.query.actor ? { actor: req.query.actor } : {}), ...(req.query.role ? { role: req.query.role } : {}) })),
    );
    app.get<{ Querystring: { prefix?: string } }>(SHARD_PATHS.resolve, async (req, res) => sendAnswer(res, await gw.localResolve(req.query.prefix ?? '')));
  };
}
