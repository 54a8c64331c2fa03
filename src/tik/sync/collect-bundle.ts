import { Keyword } from '../edn/value.js';
import { parseEvent, type TikEvent } from '../kernel/index.js';
import type { EventStore } from '../store/store.js';
import { SIDECAR_NAME, sha256Id } from '../store/store-names.js';
import type { Bundle, BundleBlob, BundleEvent, BundleSidecar } from './bundle.js';
import { parentsFirst } from './parents-first.js';
import type { StoreIndex } from './store-index.js';

const ARTIFACT_HASH = Keyword.of('artifact/hash');
const PROCESS_HASH = Keyword.of('ticket/process-hash');
const MIGRATE_HASH = Keyword.of('process/hash');

/**
 * Gathers the events with the given ids (the index says where each lives; a sidecar id stands for
 * its event) and what travels with them: signature/witness sidecars, blobs their attachments name, and the archived definitions
 * their creates and migrations pin. Events are grouped by ticket, parents before children.
 * Ids the store does not hold, and events whose bytes no longer hash to their id or parse, are
 * left out (the peer will reconcile again next round).
 */
export async function collectBundle(store: EventStore, index: Pick<StoreIndex, 'ticketOf' | 'sidecarOf'>, ids: readonly string[]): Promise<Bundle> {
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
  for (const ticket of [...byTicket.keys()].sort()) {
    const wanted = byTicket.get(ticket)!;
    const parsed: { id: string; at: number; parents: readonly string[]; event: TikEvent; bytes: Uint8Array }[] = [];
    for (const s of await store.events(ticket)) {
      if (!wanted.has(s.id)) continue;
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
    for (const p of parentsFirst(parsed)) {
      events.push({ ticket, id: p.id, bytes: p.bytes });
      const type = p.event.type.toString();
      if (type === ':artifact/attach') {
        const hash = p.event.body.get(ARTIFACT_HASH);
        if (typeof hash === 'string' && /^sha256-[0-9a-f]{64}$/.test(hash) && !seenBlobs.has(hash)) {
          seenBlobs.add(hash);
          const bytes = await store.readBlob(ticket, hash);
          if (bytes) blobs.push({ ticket, bytes });
        }
      }
      const pin = type === ':ticket/create' ? p.event.body.get(PROCESS_HASH) : type === ':process/migrate' ? p.event.body.get(MIGRATE_HASH) : undefined;
      if (typeof pin === 'string' && /^sha256-[0-9a-f]{64}$/.test(pin) && !processes.has(pin)) {
        const text = await store.readProcessByHash(pin);
        if (text !== undefined) processes.set(pin, text);
      }
    }
    for (const name of await store.sidecarNames(ticket)) {
      const m = SIDECAR_NAME.exec(name);
      if (!m || !wanted.has(m[1]!)) continue;
      const bytes = await store.readSidecar(ticket, name);
      if (bytes) sidecars.push({ ticket, name, bytes });
    }
  }
  return { processes: [...processes.values()], blobs, events, sidecars };
}
