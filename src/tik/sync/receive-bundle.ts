import { CodedError } from '../../core/errors.js';
import { TikError } from '../errors.js';
import type { TikEvent } from '../kernel/index.js';
import { admitBatch, type AdmitOptions, type DeferredEvent } from '../store/admission/index.js';
import type { EventStore } from '../store/store.js';
import { decodeBundle, type Bundle } from './bundle.js';
import { sidecarItemId } from './store-index.js';

/** What a received bundle changed. */
export interface ReceiveSummary {
  /** Events stored that were not there before. */
  readonly stored: number;
  /** Events that were already there (idempotent). */
  readonly present: number;
  readonly sidecars: number;
  readonly blobs: number;
  readonly processes: number;
  /**
   * Events held back because a parent or the pinned definition is missing here (not stored;
   * the sender still holds them, and a later transfer brings them again). Absent means none.
   */
  readonly deferred?: number;
  /** Events the receive filter refused (not stored). Absent means none. */
  readonly refused?: readonly ReceiveRefusal[];
}

/** An event a receive filter kept out, and why (`code` is the filter's error code). */
export interface ReceiveRefusal {
  readonly ticket: string;
  readonly id: string;
  readonly code: string;
  readonly message: string;
}

/**
 * A replica's own admission policy, applied to every bundle it receives (pushed to it or pulled
 * by it) before the bundle check: it returns the part of the bundle that may enter, and the events
 * it refused. It may throw a coded error to refuse the whole transfer.
 */
export type ReceiveFilter = (bundle: Bundle) => Promise<{ readonly bundle: Bundle; readonly refused: readonly ReceiveRefusal[] }>;

/** Tickets written concurrently while receiving a bundle. */
const APPEND_CONCURRENCY = 8;

/** Admission refusals travel as `sync/refused` (the peer's fault), naming the admission code. */
function asSyncRefusal(e: unknown): unknown {
  if (e instanceof CodedError && e.code.startsWith('admission/')) {
    return new TikError('sync/refused', `${e.message} (${e.code})`, { where: e.where ?? 'sync bundle', hint: e.hint ?? 'nothing from this transfer was stored', cause: e });
  }
  return e;
}

/**
 * Checks a whole bundle before storing anything (the admission check of `store/admission`):
 * canonical, hash-true, bounded events of the ticket they travel under; definitions pinned by
 * the bundle and hash-true; blobs named by an attach of their own ticket; valid sidecars of sent
 * or stored events. One bad record refuses the whole bundle (`sync/refused`) and nothing is
 * written. Returns the events that may be stored (events waiting for a parent are not among them).
 */
export async function checkBundle(store: EventStore, bundle: Bundle, options: AdmitOptions = {}): Promise<readonly TikEvent[]> {
  try {
    return (await admitBatch(store, bundle, options)).events.map((e) => e.event);
  } catch (e) {
    throw asSyncRefusal(e);
  }
}

/** Options for `receiveBundle`. */
export interface ReceiveOptions {
  /** For a fetch answer: the ids that were asked for; anything else refuses the answer. */
  readonly requested?: ReadonlySet<string>;
  /** Called with the events held back (for a retry, or a report). */
  readonly onDeferred?: (deferred: readonly DeferredEvent[]) => void;
  /** The replica's policy: judges the decoded bundle before anything is checked or stored. */
  readonly filter?: ReceiveFilter;
}

/**
 * Receives a transfer: decode (a truncated body is an error), apply the replica's filter (what it
 * refuses is reported, never stored), admit the rest, then store
 * definitions (with their signatures), blobs, events parents-first, and sidecars last. Appends are idempotent, so a
 * repeated or overlapping transfer stores nothing twice; an interrupted one left a parent-closed
 * prefix per ticket that the next round completes.
 */
export async function receiveBundle(store: EventStore, body: Uint8Array, options: ReceiveOptions = {}): Promise<ReceiveSummary> {
  let bundle = decodeBundle(body);
  let refused: readonly ReceiveRefusal[] = [];
  if (options.filter) ({ bundle, refused } = await options.filter(bundle));
  let ok;
  try {
    ok = await admitBatch(store, bundle, options.requested !== undefined ? { requested: { ids: options.requested, sidecarItemId } } : {});
  } catch (e) {
    throw asSyncRefusal(e);
  }
  if (ok.deferred.length > 0) options.onDeferred?.(ok.deferred);
  let processes = 0;
  for (const text of ok.processes) {
    await store.archiveProcess(text);
    processes++;
  }
  let sidecars = 0;
  // a definition's signatures are stored beside it (counted with the sidecars)
  for (const s of ok.processSidecars) if (await store.putProcessSidecar(s.hash, s.name, s.bytes)) sidecars++;
  let blobs = 0;
  for (const b of ok.blobs) {
    await store.putBlob(b.ticket, b.bytes);
    blobs++;
  }
  let stored = 0;
  let present = 0;
  // Parents-first matters within a ticket only, so tickets are written a few at a time (the
  // store's I/O latency, not CPU, bounds a transfer); each ticket's events stay strictly in order.
  const byTicket = new Map<string, (typeof ok.events)[number][]>();
  for (const e of ok.events) {
    const list = byTicket.get(e.ticket);
    if (list) list.push(e);
    else byTicket.set(e.ticket, [e]);
  }
  const queue = [...byTicket.values()];
  const worker = async (): Promise<void> => {
    for (let list = queue.shift(); list !== undefined; list = queue.shift()) {
      for (const e of list) {
        if (await store.append(e.ticket, e.id, e.bytes)) stored++;
        else present++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(APPEND_CONCURRENCY, queue.length) }, worker));
  for (const s of ok.sidecars) if (await store.putSidecar(s.ticket, s.name, s.bytes)) sidecars++;
  return { stored, present, sidecars, blobs, processes, ...(ok.deferred.length > 0 ? { deferred: ok.deferred.length } : {}), ...(refused.length > 0 ? { refused } : {}) };
}
