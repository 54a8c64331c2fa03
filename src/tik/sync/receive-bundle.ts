import { CodedError } from '../../core/errors.js';
import { TikError } from '../errors.js';
import type { TikEvent } from '../kernel/index.js';
import { admitBatch, type AdmitOptions, type DeferredEvent } from '../store/admission/index.js';
import type { EventStore } from '../store/store.js';
import { BUNDLE_MAGIC, BUNDLE_VERSION, decodeBundle, LIMITS, RecordKind, type Bundle, type BundleBlob, type BundleEvent, type BundleProcessSidecar, type BundleSidecar } from './bundle.js';
import { SYNC_LIMITS } from './limits.js';
import { StreamReader } from './stream-reader.js';
import { ID_BYTES, idText } from './sync-item.js';
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
  /** A streamed push lists its first 1000 refusals; when there were more, how many in all. */
  readonly refusedCount?: number;
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
  return receiveDecoded(store, decodeBundle(body), options);
}

/** Filters, admits and stores one decoded bundle (or one group of a streamed push, or pulled answers merged). */
export async function receiveDecoded(store: EventStore, bundle: Bundle, options: ReceiveOptions): Promise<ReceiveSummary> {
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
  // store's I/O latency, not CPU, bounds a transfer); each ticket's events are one batch, written
  // strictly in order (a crash leaves a parent-closed prefix) and flushed before this returns.
  const byTicket = new Map<string, (typeof ok.events)[number][]>();
  for (const e of ok.events) {
    const list = byTicket.get(e.ticket);
    if (list) list.push(e);
    else byTicket.set(e.ticket, [e]);
  }
  const queue = [...byTicket.values()];
  const worker = async (): Promise<void> => {
    for (let list = queue.shift(); list !== undefined; list = queue.shift()) {
      for (const isNew of await appendTicket(store, list)) {
        if (isNew) stored++;
        else present++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(APPEND_CONCURRENCY, queue.length) }, worker));
  for (const s of ok.sidecars) if (await store.putSidecar(s.ticket, s.name, s.bytes)) sidecars++;
  return { stored, present, sidecars, blobs, processes, ...(ok.deferred.length > 0 ? { deferred: ok.deferred.length } : {}), ...(refused.length > 0 ? { refused } : {}) };
}

/** Stores one ticket's admitted events, parents first: one batch where the store offers it. */
async function appendTicket(store: EventStore, list: readonly { readonly ticket: string; readonly id: string; readonly bytes: Uint8Array }[]): Promise<readonly boolean[]> {
  const ticket = list[0]!.ticket;
  if (store.appendBatch !== undefined) return store.appendBatch(ticket, list);
  const out: boolean[] = [];
  for (const e of list) out.push(await store.append(ticket, e.id, e.bytes));
  return out;
}

/** The counts of several receives added up (`deferred` as a number, 0 for none). */
export interface ReceiveCounts {
  stored: number;
  present: number;
  sidecars: number;
  blobs: number;
  processes: number;
  deferred: number;
}

/** Adds the counts of `s` to `total`. */
export function addCounts(total: ReceiveCounts, s: ReceiveSummary): void {
  total.stored += s.stored;
  total.present += s.present;
  total.sidecars += s.sidecars;
  total.blobs += s.blobs;
  total.processes += s.processes;
  total.deferred += s.deferred ?? 0;
}

/** Options for `receiveStream`. */
export interface StreamOptions {
  readonly filter?: ReceiveFilter;
  /** Sees each group before it is admitted (a sharded replica refuses foreign tickets). */
  readonly onGroup?: (group: Bundle) => void;
  /** A group is admitted once it holds this many record bytes and the next unit begins. */
  readonly groupBytes?: number;
  /** The most record bytes one group may hold (one largest unit; a bundle in the older order whole). */
  readonly maxGroupBytes?: number;
}

/** Record bytes gathered before a group is admitted (whole units; docs/tik-sync.md, "Streamed push"). */
export const GROUP_BYTES = 16 << 20;
/** Refusals listed in a streamed push's summary (the count is complete). */
const MAX_LISTED_REFUSALS = 1000;

/**
 * Receives a pushed bundle while it streams: records are parsed one at a time and gathered into
 * groups of whole units (an event with its sidecars, the blob it attaches and the definition it
 * pins), and each group is admitted and stored — the same checks as `receiveBundle` — as soon as
 * it holds `groupBytes` and the next unit begins. So a push of any size holds at most one group
 * (`groupBytes` plus one unit, `maxGroupBytes` at most) in memory. A bundle in the older order
 * (blobs before the events that name them, sidecars after all events) is recognised as it arrives
 * and then gathered whole, within `maxGroupBytes`, as before.
 *
 * A refused record or a cut stream stops the push with its error; the groups admitted before it
 * stay stored. Each group is admitted parents-first and all or nothing, so every stored event is
 * whole (its sidecars and blob stored with it, its parents stored before it); the pending group is
 * dropped, and since appends are idempotent the peer's retry completes the transfer.
 */
export async function receiveStream(store: EventStore, source: AsyncIterable<Uint8Array>, options: StreamOptions = {}): Promise<ReceiveSummary> {
  const groupBytes = options.groupBytes ?? GROUP_BYTES;
  const maxGroupBytes = options.maxGroupBytes ?? SYNC_LIMITS.bundleBytes;
  const r = new StreamReader(source, 'a push bundle');
  const magic = await r.bytes(4, 'magic');
  if (Buffer.compare(magic, BUNDLE_MAGIC) !== 0) {
    throw new TikError('sync/bad-bundle', 'the body is not a tik sync bundle (it does not start with "TIKB")', { where: 'sync bundle @0', hint: 'send application/octet-stream bundles as docs/tik-sync.md describes' });
  }
  const version = await r.byte('version');
  if (version !== BUNDLE_VERSION) throw new TikError('sync/version', `unsupported bundle version ${version} (this replica speaks 1)`, { where: 'sync bundle @4', hint: 'upgrade the older replica' });

  const total: ReceiveCounts = { stored: 0, present: 0, sidecars: 0, blobs: 0, processes: 0, deferred: 0 };
  const refused: ReceiveRefusal[] = [];
  let refusedCount = 0;
  let group = { processes: [] as string[], processSidecars: [] as BundleProcessSidecar[], blobs: [] as BundleBlob[], events: [] as BundleEvent[], sidecars: [] as BundleSidecar[] };
  let size = 0;
  let unit: string | undefined; // `${ticket} ${id}` of the current unit's event
  let previous: number = RecordKind.End;
  let olderOrder = false;
  const admit = async (): Promise<void> => {
    if (size === 0) return;
    const bundle: Bundle = group;
    options.onGroup?.(bundle);
    const s = await receiveDecoded(store, bundle, options.filter ? { filter: options.filter } : {});
    addCounts(total, s);
    for (const x of s.refused ?? []) if (refused.length < MAX_LISTED_REFUSALS) refused.push(x);
    refusedCount += s.refused?.length ?? 0;
    group = { processes: [], processSidecars: [], blobs: [], events: [], sidecars: [] };
    size = 0;
    unit = undefined;
  };
  const add = (n: number): void => {
    size += n;
    if (size > maxGroupBytes) {
      throw new TikError('sync/too-large', `a push bundle holds more than ${maxGroupBytes} bytes that must be admitted together (${olderOrder ? 'a bundle in the older record order is admitted whole' : 'one event with its sidecars and blob'})`, {
        where: `sync bundle @${r.offset}`,
        hint: olderOrder ? 'send smaller bundles, or upgrade the sender (it then sends records in unit order, admitted while they stream)' : 'the peer sent an oversized unit',
      });
    }
  };
  for (;;) {
    const at = r.offset;
    const kind = await r.byte('record kind (the end record is missing)');
    // A unit begins with its definition or its event (not an event right after its definition).
    const begins = kind === RecordKind.End || kind === RecordKind.Process || (kind === RecordKind.Event && previous !== RecordKind.Process && previous !== RecordKind.ProcessSidecar);
    if (begins && !olderOrder && size >= groupBytes) await admit();
    if (kind === RecordKind.End) break;
    if (kind === RecordKind.Process) {
      const b = await r.lengthPrefixed('process text', LIMITS.process);
      add(b.length);
      group.processes.push(Buffer.from(b).toString('utf8'));
    } else if (kind === RecordKind.ProcessSidecar) {
      const name = Buffer.from(await r.lengthPrefixed('process sidecar name', LIMITS.name)).toString('utf8');
      const bytes = await r.lengthPrefixed('process sidecar bytes', LIMITS.sidecar);
      add(bytes.length + name.length);
      group.processSidecars.push({ name, bytes });
    } else if (kind === RecordKind.Blob) {
      const ticket = uuidText(await r.bytes(16, 'blob ticket'));
      // in unit order a blob follows the event that attaches it; otherwise this is the older order
      if (unit === undefined || !unit.startsWith(`${ticket} `)) olderOrder = true;
      const bytes = await r.lengthPrefixed('blob', LIMITS.blob);
      add(bytes.length);
      group.blobs.push({ ticket, bytes });
    } else if (kind === RecordKind.Event) {
      const ticket = uuidText(await r.bytes(16, 'event ticket'));
      const id = idText(await r.bytes(ID_BYTES, 'event id'));
      const bytes = await r.lengthPrefixed('event bytes', LIMITS.event);
      add(bytes.length);
      group.events.push({ ticket, id, bytes });
      unit = `${ticket} ${id}`;
    } else if (kind === RecordKind.Sidecar) {
      const ticket = uuidText(await r.bytes(16, 'sidecar ticket'));
      const name = Buffer.from(await r.lengthPrefixed('sidecar name', LIMITS.name)).toString('utf8');
      const bytes = await r.lengthPrefixed('sidecar bytes', LIMITS.sidecar);
      add(bytes.length + name.length);
      group.sidecars.push({ ticket, name, bytes });
      // a sidecar of an event that is not the current unit's: the older order (or a stored event's)
      if (unit !== undefined && !name.startsWith(`${unit.slice(unit.indexOf(' ') + 1)}.`)) olderOrder = true;
    } else {
      throw new TikError('sync/bad-bundle', `sync bundle has an unknown record kind ${kind} at offset ${at}`, { where: `sync bundle @${at}`, hint: 'kinds are 0 end, 1 event, 2 sidecar, 3 blob, 4 process, 5 process signature' });
    }
    previous = kind;
  }
  await admit();
  if (!(await r.atEnd())) {
    throw new TikError('sync/bad-bundle', `sync bundle has byte(s) after its end record at offset ${r.offset}`, { where: `sync bundle @${r.offset}`, hint: 'the body was corrupted in transit; retry' });
  }
  return {
    stored: total.stored,
    present: total.present,
    sidecars: total.sidecars,
    blobs: total.blobs,
    processes: total.processes,
    ...(total.deferred > 0 ? { deferred: total.deferred } : {}),
    ...(refusedCount > 0 ? { refused, ...(refusedCount > refused.length ? { refusedCount } : {}) } : {}),
  };
}

const uuidText = (b: Uint8Array): string => {
  const h = Buffer.from(b).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};
