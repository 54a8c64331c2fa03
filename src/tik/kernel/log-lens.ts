/**
 * The log lens (tik-model.md §7.3): the events in fold order, each with the stages it newly
 * derived. Computed when rendered, never stored.
 */
import type { EdnMap, Instant } from '../edn/value.js';
import type { TikEvent } from './event.js';
import type { ProcessDef, Roles } from './process.js';
import { evolve } from './stage.js';

export interface LogEntry {
  readonly eventId: string;
  readonly at: Instant;
  /** Event type keyword text, e.g. `':fact/assert'`. */
  readonly type: string;
  readonly actor: string;
  readonly body: EdnMap;
  /** Stages newly reached at this step (sorted keyword texts). */
  readonly derived: readonly string[];
}

/** log over a ticket's events, derived with the same per-event clamp as `evolve`. */
export function logLens(def: ProcessDef, events: readonly TikEvent[], now: Instant, roles: Roles): LogEntry[] {
  const ev = evolve(def, events, now, roles);
  const byId = new Map(events.map((e) => [e.id, e]));
  let prev: ReadonlySet<string> = new Set();
  return ev.timeline.map((t) => {
    const e = byId.get(t.eventId) as TikEvent;
    const derived = [...t.reached].filter((s) => !prev.has(s)).sort();
    prev = t.reached;
    return Object.freeze({ eventId: e.id, at: e.at, type: e.type.toString(), actor: e.actor, body: e.body, derived });
  });
}
