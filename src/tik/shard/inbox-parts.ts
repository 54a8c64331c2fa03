import type { Instant } from '../edn/value.js';
import { explainDerived, inbox, isSettled } from '../kernel/index.js';
import { holdBackDependents } from '../app/depends-on.js';
import type { Json } from '../app/json-value.js';
import { reasonJson } from '../app/lenses.js';
import type { LoadedTicket } from '../app/ticket-set.js';

/** One inbox action contributed by one ticket, in the `tik next --json` item shape. */
export interface InboxPartItem {
  readonly action: string;
  readonly who: 'anyone' | readonly string[];
  readonly role: string | null;
  readonly notActor: string | null;
  readonly staleMs: number;
  readonly unlocks: readonly { readonly ticket: string; readonly stage: string; readonly hint: string | null }[];
}

/**
 * What one ticket contributes to `next` — the per-ticket half of the inbox (T3: it reads only
 * that ticket's log). A shard answers a list of these; the gathering replica combines every
 * shard's list into exactly the inbox a single store holding every ticket would compute.
 */
export interface TicketInbox {
  readonly ticket: string;
  readonly settled: boolean;
  /** The `[:link :depends-on]` target that holds this ticket back unless it is settled, if any. */
  readonly dependsOn: string | null;
  /** In the order the inbox first meets them (explain block order, then rank). */
  readonly items: readonly InboxPartItem[];
  readonly waiting: readonly { readonly ticket: string; readonly stage: string; readonly reason: Json }[];
}

/** The `tik next --json` document. */
export interface NextJson {
  readonly items: readonly InboxPartItem[];
  readonly waiting: TicketInbox['waiting'];
  readonly settled: number;
  readonly heldBack: readonly { readonly ticket: string; readonly dependsOn: string }[];
}

/** The inbox contribution of one loaded ticket at `now`, with the `--actor`/`--role` filters of `next`. */
export function ticketInbox(t: LoadedTicket, now: Instant, opts: { readonly actor?: string; readonly role?: string }): TicketInbox {
  const r = inbox([{ ticket: t.ticket, def: t.def, events: t.events }], now, () => t.roles, { ...opts, all: true });
  // The inbox meets a ticket's actions block by block; within one block the rank order of a
  // single-ticket inbox keeps the order they were met in wherever it can matter for ties.
  const blocks = explainDerived(t.def, t.derived, now, t.roles).blocks.map((b) => b.stage);
  const firstBlock = (stage: string | undefined): number => (stage === undefined ? -1 : blocks.indexOf(stage));
  const ranked = r.items.map((item, rank) => ({ item, rank, block: firstBlock(item.unlocks[0]?.stage) }));
  ranked.sort((a, b) => a.block - b.block || a.rank - b.rank);
  const held = holdBackDependents([t]).held[0];
  return {
    ticket: t.ticket,
    settled: isSettled(t.def, t.derived.reached),
    dependsOn: held?.dependsOn ?? null,
    items: ranked.map(({ item: i }) => ({
      action: i.actionText,
      who: i.who === 'anyone' ? 'anyone' : [...i.who],
      role: i.role ?? null,
      notActor: i.notActor ?? null,
      staleMs: i.staleMs,
      unlocks: i.unlocks.map((u) => ({ ticket: u.ticket, stage: u.stage, hint: u.hint ?? null })),
    })),
    waiting: r.waiting.map((w) => ({ ticket: w.ticket, stage: w.stage, reason: reasonJson(w.reason) })),
  };
}

/**
 * Combines the contributions of every ticket (from any number of shards, in any order) into the
 * `next --json` document of one store holding them all: dependents held back unless their target
 * is present and settled, settled tickets counted (or kept with `all`), actions grouped across
 * tickets in ticket order and ranked by unlocks, staleness, then action text.
 */
export function combineInbox(parts: readonly TicketInbox[], all: boolean): NextJson {
  const sorted = [...parts].sort((a, b) => (a.ticket < b.ticket ? -1 : a.ticket > b.ticket ? 1 : 0));
  const byId = new Map(sorted.map((p) => [p.ticket, p] as const));
  const heldBack: { ticket: string; dependsOn: string }[] = [];
  const waiting: TicketInbox['waiting'][number][] = [];
  const groups = new Map<string, { first: InboxPartItem; staleMs: number; unlocks: InboxPartItem['unlocks'][number][] }>();
  let settled = 0;
  for (const p of sorted) {
    if (p.dependsOn !== null && byId.get(p.dependsOn)?.settled !== true) {
      heldBack.push({ ticket: p.ticket, dependsOn: p.dependsOn });
      continue;
    }
    if (!all && p.settled) {
      settled++;
      continue;
    }
    for (const i of p.items) {
      const key = JSON.stringify([i.action, i.who, i.role, i.notActor]);
      let g = groups.get(key);
      if (!g) {
        g = { first: i, staleMs: i.staleMs, unlocks: [] };
        groups.set(key, g);
      }
      g.staleMs = Math.max(g.staleMs, i.staleMs);
      g.unlocks.push(...i.unlocks);
    }
    waiting.push(...p.waiting);
  }
  const items = [...groups.values()]
    .map((g) => ({ ...g.first, staleMs: g.staleMs, unlocks: g.unlocks }))
    .sort((a, b) => b.unlocks.length - a.unlocks.length || b.staleMs - a.staleMs || (a.action < b.action ? -1 : a.action > b.action ? 1 : 0));
  return { items, waiting, settled, heldBack };
}
