/**
 * The parents DAG over one ticket's events (tik-model.md §2.3): heads, roots and missing
 * parents. Parents are integrity and concurrency data, never ordering. Walks never throw.
 */
import type { TikEvent } from './event.js';

type DagEvent = Pick<TikEvent, 'id' | 'parents'>;

/** Ids named as a parent by some event but absent from the set, sorted. */
export function missingParents(events: readonly DagEvent[]): string[] {
  const have = new Set(events.map((e) => e.id));
  const missing = new Set<string>();
  for (const e of events) for (const p of e.parents) if (!have.has(p)) missing.add(p);
  return [...missing].sort();
}

/** Ids of events no other event names as a parent, sorted. */
export function heads(events: readonly DagEvent[]): string[] {
  const named = new Set<string>();
  for (const e of events) for (const p of e.parents) named.add(p);
  return [...new Set(events.map((e) => e.id))].filter((id) => !named.has(id)).sort();
}

/** Ids of events with no parents (a valid ticket has exactly one: its create), sorted. */
export function roots(events: readonly DagEvent[]): string[] {
  return [...new Set(events.filter((e) => e.parents.length === 0).map((e) => e.id))].sort();
}

/** Dedupes by id (first kept) and sorts by `(at, id)`: the fold order (§3.1). */
export function foldOrder<E extends Pick<TikEvent, 'id' | 'at'>>(events: readonly E[]): E[] {
  const seen = new Set<string>();
  const out: E[] = [];
  for (const e of events) {
    if (seen.has(e.id)) continue;
    seen.add(e.id);
    out.push(e);
  }
  return out.sort((a, b) => a.at.ms - b.at.ms || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
