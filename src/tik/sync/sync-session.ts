import { TikError } from '../errors.js';
import type { EventStore } from '../store/store.js';
import { decodeBundle, encodeBundle, encodeIdList, type Bundle } from './bundle.js';
import { collectBundle } from './collect-bundle.js';
import { SYNC_LIMITS, type SyncLimits } from './limits.js';
import { addCounts, receiveDecoded, type ReceiveCounts, type ReceiveFilter, type ReceiveOptions, type ReceiveRefusal, type ReceiveSummary } from './receive-bundle.js';
import { Reconciler, type ReconcileOptions } from './reconciler.js';
import { indexStore, sidecarItemId, type StoreIndex } from './store-index.js';
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
  /** Bounds on this session (rounds, ids, bytes, bundle size); defaults `SYNC_LIMITS`. */
  readonly limits?: Partial<SyncLimits>;
  /** Stops the session between steps (give the transport the same signal to stop requests too). */
  readonly signal?: AbortSignal;
  /** The local replica's admission policy, applied to every pulled bundle (`receiveBundle`). */
  readonly filter?: ReceiveFilter;
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
  /** True when the session stopped collecting ids at `limits.sessionIds`: the next sync does the rest. */
  readonly truncated: boolean;
  /** Ids the peer announced but did not send after a partial answer (asked for again next sync). */
  readonly undelivered: number;
  /** Pulled events the `filter` refused (not stored). Absent means none. */
  readonly refused?: readonly ReceiveRefusal[];
}

const limitError = (what: string, hint: string): TikError => new TikError('sync/peer-limit', what, { where: 'sync session', hint });

/**
 * One sync with a peer: reconcile the event sets, then pull what we lack and push what the peer
 * lacks, in batches, parents before children. Every received event is checked before it is
 * stored. No state survives: an interrupted sync left each side a subset of the union, and the
 * next sync reconciles the rest. The peer is bounded: past `limits.rounds` round trips or
 * `limits.sessionBytes` received, or when a fetch answer brings none of what it was asked for,
 * the session ends with a `sync/peer-limit` error (what was stored until then stays).
 */
export async function syncWith(local: EventStore, peer: SyncTransport, options: SyncOptions = {}): Promise<SyncReport> {
  const limits: SyncLimits = { ...SYNC_LIMITS, ...options.limits };
  const direction = options.direction ?? 'both';
  const batch = Math.min(options.batch ?? 10_000, limits.fetchIds);
  const checkAborted = (): void => {
    if (options.signal?.aborted) throw new TikError('sync/aborted', 'the sync was stopped', { where: 'sync session', hint: 'nothing was lost; the next sync resumes' });
  };
  const index = await indexStore(local);
  const rec = new Reconciler(index.set, { frameSizeLimit: DEFAULT_FRAME_LIMIT, ...options });
  const have: string[] = [];
  const need: string[] = [];
  let rounds = 0;
  let sent = 0;
  let received = 0;
  let truncated = false;
  const count = (n: number): void => {
    received += n;
    if (received + tIn > limits.sessionBytes) throw limitError(`the peer sent more than ${limits.sessionBytes} bytes in one sync session`, 'the peer is given up on for this session; what was stored stays');
  };
  let tIn = 0;
  let msg: Uint8Array | undefined = rec.initiate();
  while (msg !== undefined) {
    checkAborted();
    if (rounds >= limits.rounds) {
      throw limitError(`gave up after ${rounds} reconciliation round trips (the limit) without the peer finishing`, 'an honest peer finishes in a few rounds; this one is given up on and backed off');
    }
    sent += msg.length;
    const answer = await peer.reconcile(msg);
    count(answer.length);
    rounds++;
    const step = rec.reconcile(answer);
    have.push(...step.have);
    need.push(...step.need);
    msg = step.next;
    if (have.length + need.length >= limits.sessionIds && msg !== undefined) {
      // Enough for one session: transfer these; the next sync reconciles the rest.
      truncated = true;
      break;
    }
  }
  options.onProgress?.(`reconciled in ${rounds} round trip(s): ${need.length} to pull, ${have.length} to push${truncated ? ` (stopped at ${limits.sessionIds} ids; the next sync does the rest)` : ''}`);
  let pulled = 0;
  let pushed = 0;
  let tOut = 0;
  let undelivered = 0;
  const refused: ReceiveRefusal[] = [];
  if (direction !== 'push') {
    // A fetch answer may hold only what was asked for (admission refuses anything else). Events
    // held back for a parent that a later batch brings are asked for again once the batches are
    // done, while that makes progress (a chain split across batches arrives whole). Items sort by
    // time, so every batch of a full sync holds a slice of every ticket: answers are held (up to
    // `limits.pullBufferBytes`) and stored together, so that each ticket is written as one batch.
    const pending = new PendingAnswers();
    const store = async (): Promise<void> => {
      const r = await pending.receive(local, { onDeferred: (d) => again.push(...d.map((x) => x.id)), ...(options.filter ? { filter: options.filter } : {}) });
      if (r === undefined) return;
      if (r.refused) refused.push(...r.refused);
      pulled += r.stored;
      progress += r.stored + r.sidecars;
    };
    let wanted = need;
    let again: string[] = [];
    let progress = 0;
    try {
      while (wanted.length > 0) {
        again = [];
        progress = 0;
        for (let i = 0; i < wanted.length; i += batch) {
          // An answer may hold a prefix of what was asked (the peer caps its bundles); ask again for the rest.
          let ask = wanted.slice(i, i + batch);
          for (let first = true; ask.length > 0; first = false) {
            checkAborted();
            const req = encodeIdList(ask);
            tOut += req.length;
            const body = await peer.fetch(req);
            tIn += body.length;
            count(0);
            const answer = decodeBundle(body);
            const got = new Set([...answer.events.map((e) => e.id), ...answer.sidecars.map((s) => sidecarItemId(s.ticket, s.name, s.bytes))]);
            const rest = ask.filter((id) => !got.has(id));
            pending.add(answer, body.length, ask);
            if (pending.bytes >= limits.pullBufferBytes) await store();
            if (rest.length === ask.length) {
              if (first) throw limitError(`the peer announced ${ask.length} event(s) it then did not send (asked for ${ask[0]}…)`, 'the peer is given up on for this session; what was stored stays');
              // After a partial answer: what is still missing was lost at the peer; the next sync asks again.
              undelivered += rest.length;
              break;
            }
            ask = rest;
          }
          options.onProgress?.(`pulled ${Math.min(i + batch, wanted.length)}/${wanted.length}`);
        }
        await store();
        if (again.length > 0) options.onProgress?.(`${again.length} event(s) wait for a parent or definition the peer did not send`);
        wanted = progress > 0 && again.length < wanted.length ? again : [];
      }
    } catch (e) {
      // what the peer sent before it failed or the session stopped is stored, as it arrived
      if (pending.bytes > 0) await store().catch(() => undefined);
      throw e;
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
      for (const body of await pushBodies(local, index, ids, limits.bundleBytes)) {
        checkAborted();
        tOut += body.length;
        pushed += (await peer.push(body)).stored;
      }
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
    truncated,
    undelivered,
    ...(refused.length > 0 ? { refused } : {}),
  };
}

/**
 * Fetch answers held to be stored together: one merged bundle, whose ids must each have been asked
 * for by some answer of it. If the merged bundle is refused, the answers are received one by one,
 * in order, so that what came before a bad answer is stored and the bad one fails as it would alone.
 */
class PendingAnswers {
  private answers: { readonly bundle: Bundle; readonly ask: readonly string[] }[] = [];
  bytes = 0;

  add(bundle: Bundle, bytes: number, ask: readonly string[]): void {
    this.answers.push({ bundle, ask });
    this.bytes += bytes;
  }

  /** Stores what is held (nothing: undefined) and empties the buffer. */
  async receive(local: EventStore, options: ReceiveOptions): Promise<ReceiveSummary | undefined> {
    const answers = this.answers;
    this.answers = [];
    this.bytes = 0;
    if (answers.length === 0) return undefined;
    const one = (a: (typeof answers)[number]): Promise<ReceiveSummary> => receiveDecoded(local, a.bundle, { ...options, requested: new Set(a.ask) });
    if (answers.length === 1) return one(answers[0]!);
    const merged: Bundle = {
      processes: answers.flatMap((a) => a.bundle.processes),
      processSidecars: answers.flatMap((a) => a.bundle.processSidecars ?? []),
      blobs: answers.flatMap((a) => a.bundle.blobs),
      events: answers.flatMap((a) => a.bundle.events),
      sidecars: answers.flatMap((a) => a.bundle.sidecars),
    };
    try {
      return await receiveDecoded(local, merged, { ...options, requested: new Set(answers.flatMap((a) => a.ask)) });
    } catch {
      const total: ReceiveCounts = { stored: 0, present: 0, sidecars: 0, blobs: 0, processes: 0, deferred: 0 };
      const refused: ReceiveRefusal[] = [];
      for (const a of answers) {
        const r = await one(a);
        addCounts(total, r);
        refused.push(...(r.refused ?? []));
      }
      const { deferred, ...counts } = total;
      return { ...counts, ...(deferred > 0 ? { deferred } : {}), ...(refused.length > 0 ? { refused } : {}) };
    }
  }
}

/** Bundles for `ids`, halved until each fits the peer's bundle limit (one id always goes alone). */
async function pushBodies(local: EventStore, index: StoreIndex, ids: readonly string[], max: number): Promise<Uint8Array[]> {
  const body = encodeBundle(await collectBundle(local, index, ids));
  if (body.length <= max || ids.length === 1) return [body];
  const half = Math.ceil(ids.length / 2);
  return [...(await pushBodies(local, index, ids.slice(0, half), max)), ...(await pushBodies(local, index, ids.slice(half), max))];
}
