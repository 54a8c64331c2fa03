import { parseEvent } from '../kernel/index.js';
import type { EventStore } from '../store/store.js';
import { sha256Id } from '../store/store-names.js';
import { ItemSet } from './item-set.js';
import { idBytes, itemTime, type SyncItem } from './sync-item.js';

/** A store seen as a reconcilable set, and where each id lives. */
export interface StoreIndex {
  readonly set: ItemSet;
  readonly ticketOf: ReadonlyMap<string, string>;
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
 * Reads every event of the store into an `ItemSet`. Built per sync round, never persisted: it
 * sees every arrival path (own writes, sync, CLI writes, copied files). Events whose bytes do not
 * hash to their id or do not parse are left out: a replica never offers what it cannot vouch for.
 */
export async function indexStore(store: EventStore): Promise<StoreIndex> {
  const items: SyncItem[] = [];
  const ticketOf = new Map<string, string>();
  for (const ticket of await store.ticketIds()) {
    for (const e of await store.events(ticket)) {
      const ts = timeOf(e.id, e.bytes);
      if (ts === undefined) continue;
      items.push({ ts, id: idBytes(e.id) });
      ticketOf.set(e.id, ticket);
    }
  }
  return { set: ItemSet.of(items), ticketOf };
}
