/**
 * Stage derivation (tik-model.md §6): the fixpoint with synchronous sweeps, the `evolve` fold
 * with sticky carry and the per-event clamp, current stages and the `:after` graph.
 */
import type { Instant } from '../edn/value.js';
import { foldOrder } from './dag.js';
import type { TikEvent } from './event.js';
import { guardsHold, type GuardContext } from './guard.js';
import type { ProcessDef, Roles } from './process.js';
import { TicketFold, type FactStatus, type TicketState } from './reduce.js';

/**
 * `reached_set` (§6.1): starting from `seed`, each sweep adds every unreached stage whose
 * `:after` stages are reached and whose guards all hold against the sweep-start snapshot, at
 * time `t`. Stops when a sweep adds nothing. Sticky seeds count even if their `:after` don't.
 */
export function reachedSet(def: ProcessDef, state: TicketState, t: Instant, roles: Roles, seed: ReadonlySet<string>): Set<string> {
  const reached = new Set(seed);
  const memo = new Map<string, FactStatus>();
  // `reached` is only added to after a whole sweep, so during a sweep it *is* the snapshot.
  const ctx: GuardContext = { state, def, now: t, reached, roles, memo };
  for (;;) {
    const add: string[] = [];
    for (const s of def.stages) {
      if (reached.has(s.key)) continue;
      if (!s.afterKeys.every((a) => reached.has(a))) continue;
      if (guardsHold(s.guards, ctx)) add.push(s.key);
    }
    if (add.length === 0) return reached;
    for (const k of add) reached.add(k);
  }
}

/** One step of the evolve fold: the event, its unclamped instant, and what was reached then. */
export interface TimelineEntry {
  readonly eventId: string;
  readonly at: Instant;
  readonly reached: ReadonlySet<string>;
}

export interface Evolution {
  /** The reduced state after every event. */
  readonly state: TicketState;
  /** Sticky stages reached at some prefix (the carry). */
  readonly ever: ReadonlySet<string>;
  readonly timeline: readonly TimelineEntry[];
}

/**
 * The `evolve` fold (§6.2): after each event (in fold order) derive at `min(e.at, now)` seeded
 * with the sticky stages ever reached, and carry the sticky ones forward.
 */
export function evolve(def: ProcessDef, events: readonly TikEvent[], now: Instant, roles: Roles): Evolution {
  const sticky = new Set(def.stages.filter((s) => s.sticky).map((s) => s.key));
  const fold = new TicketFold();
  const ever = new Set<string>();
  const timeline: TimelineEntry[] = [];
  for (const e of foldOrder(events)) {
    fold.apply(e);
    const t = e.at.ms < now.ms ? e.at : now;
    const r = reachedSet(def, fold, t, roles, ever);
    for (const k of r) if (sticky.has(k)) ever.add(k);
    timeline.push(Object.freeze({ eventId: e.id, at: e.at, reached: r }));
  }
  return { state: fold, ever, timeline };
}

/** The reached set at `now` over all events, seeded with the sticky carry (§6.2). */
export function effectiveReached(def: ProcessDef, events: readonly TikEvent[], now: Instant, roles: Roles): ReadonlySet<string> {
  const ev = evolve(def, events, now, roles);
  return reachedSet(def, ev.state, now, roles, ev.ever);
}

/** Effective reached plus the evolution it came from (lenses need both). */
export function derive(
  def: ProcessDef,
  events: readonly TikEvent[],
  now: Instant,
  roles: Roles,
): Evolution & { readonly reached: ReadonlySet<string> } {
  const ev = evolve(def, events, now, roles);
  return { ...ev, reached: reachedSet(def, ev.state, now, roles, ev.ever) };
}

const ancestorCache = new WeakMap<ProcessDef, ReadonlyMap<string, ReadonlySet<string>>>();

/** Stage key → its transitive `:after` closure (stage keys; unknown names included as written). */
export function ancestorsOf(def: ProcessDef): ReadonlyMap<string, ReadonlySet<string>> {
  const hit = ancestorCache.get(def);
  if (hit) return hit;
  const out = new Map<string, ReadonlySet<string>>();
  for (const s of def.stages) {
    const seen = new Set<string>();
    const stack = [...s.afterKeys];
    while (stack.length > 0) {
      const k = stack.pop() as string;
      if (seen.has(k)) continue;
      seen.add(k);
      for (const a of def.stageByKey.get(k)?.afterKeys ?? []) stack.push(a);
    }
    out.set(s.key, seen);
  }
  ancestorCache.set(def, out);
  return out;
}

/** `current = reached − ⋃ ancestors(r)` (§6.3). */
export function currentStages(def: ProcessDef, reached: ReadonlySet<string>): ReadonlySet<string> {
  const anc = ancestorsOf(def);
  const covered = new Set<string>();
  for (const r of reached) for (const a of anc.get(r) ?? []) covered.add(a);
  return new Set([...reached].filter((r) => !covered.has(r)));
}

/** The stages whose ancestors include `stage` (explain's `:blocks`), sorted. */
export function downstream(def: ProcessDef, stage: string): string[] {
  const anc = ancestorsOf(def);
  return def.stages
    .filter((s) => anc.get(s.key)?.has(stage))
    .map((s) => s.key)
    .sort();
}

/** Stage keys sorted as text (the order the CLI prints and `status` returns). */
export function sortedStages(set: ReadonlySet<string>): string[] {
  return [...set].sort();
}
