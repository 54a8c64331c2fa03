import { Keyword } from '../edn/value.js';
import { parseEvent, type TikEvent } from '../kernel/index.js';
import type { EventStore, StoredEvent } from '../store/store.js';
import { SIDECAR_NAME, sha256Id } from '../store/store-names.js';
import type { Bundle, BundleBlob, BundleEvent, BundleProcessSidecar, BundleSidecar } from './bundle.js';
import { parentsFirst } from './parents-first.js';
import type { StoreIndex } from './store-index.js';

const ARTIFACT_HASH = Keyword.of('artifact/hash');
const PROCESS_HASH = Keyword.of('ticket/process-hash');
const MIGRATE_HASH = Keyword.of('process/hash');

/**
 * Gathers the events with the given ids (the index says where each lives; a sidecar id stands for
 * its event), reading only those events, and what travels with them: the signature/witness
 * sidecars the index lists for them, blobs their attachments name, and the archived definitions
 * their creates and migrations pin. Events are grouped by ticket, parents before children.
 * Ids the store does not hold, and events whose bytes no longer hash to their id or parse, are
 * left out (the peer will reconcile again next round). With `maxBytes`, the bundle stops at the
 * event that reaches that size (always at least one): a parents-first prefix, the rest asked for again.
 */
export async function collectBundle(store: EventStore, index: Pick<StoreIndex, 'ticketOf' | 'sidecarOf'>, ids: readonly string[], maxBytes = Infinity): Promise<Bundle> {
  const byTicket = new Map<string, Set<string>>();
  const add = (t: string, id: string): void => {
    let s = byTicket.get(t);
    if (!s) byTicket.set(t, (s = new Set()));
    s.add(id);
  };
  for (const id of ids) {
    const t = index.ticketOf.get(id);
    if (t !== undefined) add(t, id);
    // a wanted sidecar brings its event (and so every sidecar of that event): the receiver stores
    // a sidecar only beside its event, and the event may be in another batch
    const sc = index.sidecarOf.get(id);
    if (sc !== undefined) add(sc.ticket, sc.event);
  }
  const processes = new Map<string, string>();
  const blobs: BundleBlob[] = [];
  const events: BundleEvent[] = [];
  const sidecars: BundleSidecar[] = [];
  const processSidecars: BundleProcessSidecar[] = [];
  // Encoded size so far, with a generous allowance for each record's header.
  let size = 0;
  const RECORD = 64;
  let full = false;
  for (const ticket of [...byTicket.keys()].sort()) {
    const wanted = byTicket.get(ticket)!;
    const parsed: { id: string; at: number; parents: readonly string[]; event: TikEvent; bytes: Uint8Array }[] = [];
    for (const s of await wantedEvents(store, ticket, [...wanted])) {
      // the index may predate damage to the file (it reads each id's bytes once per process):
      // never send what does not hash to its id or does not parse
      if (sha256Id(s.bytes) !== s.id) continue;
      let event: TikEvent;
      try {
        event = parseEvent(Buffer.from(s.bytes).toString('utf8'), s.id);
      } catch {
        continue;
      }
      parsed.push({ id: s.id, at: event.at.ms, parents: event.parents, event, bytes: s.bytes });
    }
    const seenBlobs = new Set<string>();
    const sent = new Set<string>();
    for (const p of parentsFirst(parsed)) {
      // What this event brings with it is read first, so the bundle never overshoots its limit.
      const type = p.event.type.toString();
      let blob: Uint8Array | undefined;
      const hash = type === ':artifact/attach' ? p.event.body.get(ARTIFACT_HASH) : undefined;
      if (typeof hash === 'string' && /^sha256-[0-9a-f]{64}$/.test(hash) && !seenBlobs.has(hash)) blob = await store.readBlob(ticket, hash);
      const pin = type === ':ticket/create' ? p.event.body.get(PROCESS_HASH) : type === ':process/migrate' ? p.event.body.get(MIGRATE_HASH) : undefined;
      const text = typeof pin === 'string' && /^sha256-[0-9a-f]{64}$/.test(pin) && !processes.has(pin) ? await store.readProcessByHash(pin) : undefined;
      const signatures = text !== undefined && typeof pin === 'string' ? await definitionSignatures(store, pin) : [];
      const cost =
        p.bytes.length + RECORD + (blob ? blob.length + RECORD : 0) + (text !== undefined ? Buffer.byteLength(text) + RECORD : 0) + signatures.reduce((n, s) => n + s.bytes.length + s.name.length + RECORD, 0);
      if (events.length > 0 && size + cost > maxBytes) {
        full = true;
        break;
      }
      size += cost;
      events.push({ ticket, id: p.id, bytes: p.bytes });
      sent.add(p.id);
      if (blob && typeof hash === 'string') {
        seenBlobs.add(hash);
        blobs.push({ ticket, bytes: blob });
      }
      if (text !== undefined && typeof pin === 'string') {
        processes.set(pin, text);
        processSidecars.push(...signatures);
      }
    }
    for (const name of sidecarNamesOf(index).get(ticket) ?? []) {
      if (!sent.has(SIDECAR_NAME.exec(name)![1]!)) continue;
      const bytes = await store.readSidecar(ticket, name);
      if (bytes && size + bytes.length + name.length + RECORD <= maxBytes) {
        sidecars.push({ ticket, name, bytes });
        size += bytes.length + name.length + RECORD;
      }
    }
    if (full) break;
  }
  return { processes: [...processes.values()], blobs, events, sidecars, ...(processSidecars.length > 0 ? { processSidecars } : {}) };
}

/** The asked-for events of a ticket, reading only those (one event at a time when the store has no bulk read). */
async function wantedEvents(store: EventStore, ticket: string, ids: readonly string[]): Promise<readonly StoredEvent[]> {
  if (store.eventsById !== undefined) return store.eventsById(ticket, ids);
  const out: StoredEvent[] = [];
  for (const id of ids) {
    const bytes = await store.eventBytes(ticket, id);
    if (bytes !== undefined) out.push({ id, bytes });
  }
  return out;
}

/** Ticket → the sidecar names the index holds, sorted (built once per index). */
const sidecarNamesCache = new WeakMap<object, ReadonlyMap<string, readonly string[]>>();
function sidecarNamesOf(index: Pick<StoreIndex, 'sidecarOf'>): ReadonlyMap<string, readonly string[]> {
  let names = sidecarNamesCache.get(index.sidecarOf);
  if (names === undefined) {
    const m = new Map<string, string[]>();
    for (const { ticket, name } of index.sidecarOf.values()) {
      const list = m.get(ticket);
      if (list) list.push(name);
      else m.set(ticket, [name]);
    }
    for (const list of m.values()) list.sort();
    sidecarNamesCache.set(index.sidecarOf, (names = m));
  }
  return names;
}

/** The publication signatures (`<hash>.sig.<fpr16>`) stored beside an archived definition. */
async function definitionSignatures(store: EventStore, hash: string): Promise<BundleProcessSidecar[]> {
  const out: BundleProcessSidecar[] = [];
  for (const name of await store.processSidecarNames(hash)) {
    const m = SIDECAR_NAME.exec(name);
    if (m?.[1] !== hash || m[2] !== 'sig') continue;
    const bytes = await store.readProcessSidecar(hash, name);
    if (bytes !== undefined) out.push({ name, bytes });
  }
  return out;
}
