import type { EventStore } from '../store/store.js';
import { encodeBundle, encodeIdList } from './bundle.js';
import { collectBundle } from './collect-bundle.js';
import { receiveBundle } from './receive-bundle.js';
import { Reconciler, type ReconcileOptions } from './reconciler.js';
import { indexStore } from './store-index.js';
import type { SyncTransport } from './transport.js';

/** The initiator's default frame size limit (1 MiB), as `tik serve` answers with. */
export const DEFAULT_FRAME_LIMIT = 1 << 20;

export interface SyncOptions extends ReconcileOptions {
  /** `both` (default), `pull` (only fetch what we lack) or `push` (only send what they lack). */
  readonly direction?: 'both' | 'pull' | 'push';
  /** Events per fetch or push request. Default 1000. */
  readonly batch?: number;
  /** Progress lines (counts), for stderr. */
  readonly onProgress?: (line: string) => void;
}

/** What one sync did; bytes count message and bundle bodies (not HTTP framing). */
export interface SyncReport {
  /** Reconciliation round trips (1 when the stores were already equal). */
  readonly rounds: number;
  readonly reconcileBytesSent: number;
  readonly reconcileBytesReceived: number;
  /** Ids the peer had that we lacked, and we had that the peer lacked. */
  readonly need: number;
  readonly have: number;
  /** Events stored here / at the peer that were new. */
  readonly pulled: number;
  readonly pushed: number;
  readonly transferBytesReceived: number;
  readonly transferBytesSent: number;
}

/**
 * One sync with a peer: reconcile the event sets, then pull what we lack and push what the peer
 * lacks, in batches, parents before children. Every received event is checked before it is
 * stored. No state survives: an interrupted sync left each side a subset of the union, and the
 * next sync reconciles the rest.
 */
export async function syncWith(local: EventStore, peer: SyncTransport, options: SyncOptions = {}): Promise<SyncReport> {
  const direction = options.direction ?? 'both';
  const batch = options.batch ?? 1000;
  const index = await indexStore(local);
  const rec = new Reconciler(index.set, { frameSizeLimit: DEFAULT_FRAME_LIMIT, ...options });
  const have: string[] = [];
  const need: string[] = [];
  let rounds = 0;
  let sent = 0;
  let received = 0;
  let msg: Uint8Array | undefined = rec.initiate();
  while (msg !== undefined) {
    sent += msg.length;
    const answer = await peer.reconcile(msg);
    received += answer.length;
    rounds++;
    const step = rec.reconcile(answer);
    have.push(...step.have);
    need.push(...step.need);
    msg = step.next;
  }
  options.onProgress?.(`reconciled in ${rounds} round trip(s): ${need.length} to pull, ${have.length} to push`);
  let pulled = 0;
  let pushed = 0;
  let tIn = 0;
  let tOut = 0;
  if (direction !== 'push') {
    // A fetch answer may hold only what was asked for; events waiting for a parent that a later
    // batch brings are asked for again once the batches are done, while that makes progress.
    let wanted = need;
    while (wanted.length > 0) {
      const again: string[] = [];
      let progress = 0;
      for (let i = 0; i < wanted.length; i += batch) {
        const ids = wanted.slice(i, i + batch);
        const req = encodeIdList(ids);
        tOut += req.length;
        const body = await peer.fetch(req);
        tIn += body.length;
        const r = await receiveBundle(local, body, { requested: new Set(ids), onDeferred: (d) => again.push(...d.map((x) => x.id)) });
        pulled += r.stored;
        progress += r.stored + r.sidecars;
        options.onProgress?.(`pulled ${Math.min(i + batch, wanted.length)}/${wanted.length}`);
      }
      if (again.length > 0) options.onProgress?.(`${again.length} event(s) wait for a parent or definition the peer did not send`);
      wanted = progress > 0 && again.length < wanted.length ? again : [];
    }
  }
  if (direction !== 'pull') {
    // whole tickets per batch: parents travel with their children (a ticket larger than a batch
    // is one batch of its own)
    const byTicket = new Map<string, string[]>();
    for (const id of have) {
      const t = index.ticketOf.get(id) ?? index.sidecarOf.get(id)?.ticket ?? '';
      const list = byTicket.get(t);
      if (list) list.push(id);
      else byTicket.set(t, [id]);
    }
    const batches: string[][] = [];
    let current: string[] = [];
    for (const ids of byTicket.values()) {
      if (current.length > 0 && current.length + ids.length > batch) {
        batches.push(current);
        current = [];
      }
      current.push(...ids);
    }
    if (current.length > 0) batches.push(current);
    let done = 0;
    for (const ids of batches) {
      const body = encodeBundle(await collectBundle(local, index, ids));
      tOut += body.length;
      pushed += (await peer.push(body)).stored;
      done += ids.length;
      options.onProgress?.(`pushed ${done}/${have.length}`);
    }
  }
  return {
    rounds,
    reconcileBytesSent: sent,
    reconcileBytesReceived: received,
    need: need.length,
    have: have.length,
    pulled,
    pushed,
    transferBytesReceived: tIn,
    transferBytesSent: tOut,
  };
}
