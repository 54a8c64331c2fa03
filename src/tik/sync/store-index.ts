import { createHash } from 'node:crypto';
import { parseEvent } from '../kernel/index.js';
import type { EventStore } from '../store/store.js';
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

// id → item time. Ids are content addresses, so an entry can never go stale; the cache only
// saves re-parsing bytes already seen. Bounded to keep a long-running server's memory flat.
const timeCache = new Map<string, number>();
const CACHE_MAX = 1_000_000;

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

/**
 * Reads every event and sidecar of the store into an `ItemSet`. Built per sync round, never persisted: it
 * sees every arrival path (own writes, sync, CLI writes, copied files). Events whose bytes do not
 * hash to their id or do not parse are left out: a replica never offers what it cannot vouch for.
 */
export async function indexStore(store: EventStore): Promise<StoreIndex> {
  const items: SyncItem[] = [];
  const ticketOf = new Map<string, string>();
  const sidecarOf = new Map<string, SidecarRef>();
  for (const ticket of await store.ticketIds()) {
    const times = new Map<string, number>();
    for (const e of await store.events(ticket)) {
      const ts = timeOf(e.id, e.bytes);
      if (ts === undefined) continue;
      items.push({ ts, id: idBytes(e.id) });
      ticketOf.set(e.id, ticket);
      times.set(e.id, ts);
    }
    for (const name of await store.sidecarNames(ticket)) {
      const m = SIDECAR_NAME.exec(name);
      const ts = m ? times.get(m[1]!) : undefined;
      if (ts === undefined) continue; // a sidecar travels only with (or after) its event
      const bytes = await store.readSidecar(ticket, name);
      if (bytes === undefined) continue;
      const id = sidecarItemId(ticket, name, bytes);
      items.push({ ts, id: idBytes(id) });
      sidecarOf.set(id, { ticket, name, event: m![1]! });
    }
  }
  return { set: ItemSet.of(items), ticketOf, sidecarOf };
}
