import { createHash } from 'node:crypto';
import { parseEvent } from '../kernel/index.js';
import type { EventStore, SidecarEntry, StoredEvent } from '../store/store.js';
import { SIDECAR_NAME, sha256Id } from '../store/store-names.js';
import { ItemSet } from './item-set.js';
import { idBytes, itemTime, type SyncItem } from './sync-item.js';

/** Where a sidecar item lives. */
export interface SidecarRef {
  readonly ticket: string;
  readonly name: string;
  /** The event the sidecar belongs to. */
  readonly event: string;
}

/** A store seen as a reconcilable set, and where each id lives. */
export interface StoreIndex {
  readonly set: ItemSet;
  /** Event id → ticket. */
  readonly ticketOf: ReadonlyMap<string, string>;
  /** Sidecar item id → the sidecar. */
  readonly sidecarOf: ReadonlyMap<string, SidecarRef>;
}

/**
 * The item id of a sidecar: SHA-256 of `"tik-sidecar\n" ‖ ticket ‖ "\n" ‖ name ‖ "\n" ‖ bytes`.
 * Sidecars are set members in their own right, so a signature added after its event was synced
 * (e.g. by `tik sign`) still reaches every replica.
 */
export function sidecarItemId(ticket: string, name: string, bytes: Uint8Array): string {
  return `sha256-${createHash('sha256').update(`tik-sidecar\n${ticket}\n${name}\n`).update(bytes).digest('hex')}`;
}

// id → item time. Ids are content addresses, so an entry can never go stale; with a store that
// lists ids without bytes (`allEventIds`), a round reads only the bytes of ids it has not seen.
// Bounded to keep a long-running server's memory flat.
const timeCache = new Map<string, number>();
const CACHE_MAX = 1_000_000;
/** Up to this many unseen ids of a ticket are read one by one; more, and the whole ticket is read. */
const READ_ONE_BY_ONE = 8;

function timeOf(id: string, bytes: Uint8Array): number | undefined {
  const cached = timeCache.get(id);
  if (cached !== undefined) return cached;
  if (sha256Id(bytes) !== id) return undefined;
  let ts: number;
  try {
    ts = itemTime(parseEvent(Buffer.from(bytes).toString('utf8'), id).at.ms);
  } catch {
    return undefined;
  }
  if (timeCache.size >= CACHE_MAX) timeCache.clear();
  timeCache.set(id, ts);
  return ts;
}

/** Item times of stored events (id → ts); events that do not hash to their id or do not parse are left out. */
function timesOf(events: readonly StoredEvent[], into = new Map<string, number>()): Map<string, number> {
  for (const e of events) {
    const ts = timeOf(e.id, e.bytes);
    if (ts !== undefined) into.set(e.id, ts);
  }
  return into;
}

/** Ticket → (event id → item time), reading bytes only where the time is not known yet. */
async function eventTimes(store: EventStore): Promise<Map<string, Map<string, number>>> {
  const out = new Map<string, Map<string, number>>();
  if (store.allEventIds === undefined) {
    for (const ticket of await store.ticketIds()) out.set(ticket, timesOf(await store.events(ticket)));
    return out;
  }
  const idsOf = new Map<string, string[]>();
  for (const { ticket, id } of await store.allEventIds()) {
    const ids = idsOf.get(ticket);
    if (ids === undefined) idsOf.set(ticket, [id]);
    else ids.push(id);
  }
  for (const [ticket, ids] of idsOf) {
    const times = new Map<string, number>();
    const unseen: string[] = [];
    for (const id of ids) {
      const ts = timeCache.get(id);
      if (ts === undefined) unseen.push(id);
      else times.set(id, ts);
    }
    if (unseen.length > READ_ONE_BY_ONE) {
      const wanted = new Set(unseen);
      timesOf((await store.events(ticket)).filter((e) => wanted.has(e.id)), times);
    } else {
      for (const id of unseen) {
        const bytes = await store.eventBytes(ticket, id);
        const ts = bytes === undefined ? undefined : timeOf(id, bytes);
        if (ts !== undefined) times.set(id, ts);
      }
    }
    out.set(ticket, times);
  }
  return out;
}

/** Every sidecar of the tickets that have events, as (ticket, name). */
async function sidecarsOf(store: EventStore, tickets: Iterable<string>): Promise<readonly SidecarEntry[]> {
  if (store.allSidecarNames !== undefined) return store.allSidecarNames();
  const out: SidecarEntry[] = [];
  for (const ticket of tickets) for (const name of await store.sidecarNames(ticket)) out.push({ ticket, name });
  return out;
}

/** The last index built per store object, reused while the store's members are unchanged. */
const lastIndex = new WeakMap<EventStore, StoreIndex>();

/** True if `index` has exactly these events (id → ticket) and sidecar items. */
function sameMembers(index: StoreIndex, ticketOf: ReadonlyMap<string, string>, sidecarOf: ReadonlyMap<string, SidecarRef>): boolean {
  if (index.ticketOf.size !== ticketOf.size || index.sidecarOf.size !== sidecarOf.size) return false;
  for (const [id, ticket] of ticketOf) if (index.ticketOf.get(id) !== ticket) return false;
  for (const id of sidecarOf.keys()) if (!index.sidecarOf.has(id)) return false;
  return true;
}

/**
 * The store as an `ItemSet`: every event and sidecar. Built per sync round, never persisted, so
 * it sees every arrival path (own writes, sync, CLI writes, copied files). With `allEventIds` the
 * round lists ids and reads only bytes it has not seen before in this process; sidecar bytes are
 * read every round (a sidecar may be replaced by smaller bytes, see receive-bundle.ts). When the
 * members are exactly those of the previous round on the same store object, that round's sorted
 * set is returned again. Events whose bytes do not hash to their id or do not parse are left
 * out: a replica never offers what it cannot vouch for.
 */
export async function indexStore(store: EventStore): Promise<StoreIndex> {
  const ticketOf = new Map<string, string>();
  const sidecarOf = new Map<string, SidecarRef>();
  const sidecarTimes = new Map<string, number>();
  const times = await eventTimes(store);
  for (const [ticket, ts] of times) for (const id of ts.keys()) ticketOf.set(id, ticket);
  for (const { ticket, name } of await sidecarsOf(store, times.keys())) {
    const m = SIDECAR_NAME.exec(name);
    const ts = m ? times.get(ticket)?.get(m[1]!) : undefined;
    if (ts === undefined) continue; // a sidecar travels only with (or after) its event
    const bytes = await store.readSidecar(ticket, name);
    if (bytes === undefined) continue;
    const id = sidecarItemId(ticket, name, bytes);
    sidecarOf.set(id, { ticket, name, event: m![1]! });
    sidecarTimes.set(id, ts);
  }
  const previous = lastIndex.get(store);
  if (previous !== undefined && sameMembers(previous, ticketOf, sidecarOf)) return previous;
  const items: SyncItem[] = [];
  for (const ts of times.values()) for (const [id, t] of ts) items.push({ ts: t, id: idBytes(id) });
  for (const [id, t] of sidecarTimes) items.push({ ts: t, id: idBytes(id) });
  const index: StoreIndex = { set: ItemSet.of(items), ticketOf, sidecarOf };
  lastIndex.set(store, index);
  return index;
}
