import { Instant } from '../edn/value.js';
import { currentStages, explainDerived, isSettled, type ProcessDef, type TicketState } from '../kernel/index.js';
import { instantText } from './json-value.js';
import { titleOf } from './lenses.js';
import { reasonText } from './reason-text.js';
import type { LoadedTicket, SkippedTicket } from './ticket-set.js';

/** What keeps a ticket from one stage: each missing piece as a sentence naming who can supply it. */
export interface Blocker {
  readonly stage: string;
  readonly impossible: boolean;
  readonly missing: readonly string[];
}

/**
 * One card of the board (docs/tik-board.md): a ticket's title, current stages, age, blockers and
 * whether a fact is conflicted or disputed. Plain data: the browser renders it as text.
 */
export interface BoardCard {
  readonly ticket: string;
  readonly title: string | null;
  readonly process: string;
  readonly version: number | null;
  readonly current: readonly string[];
  readonly settled: boolean;
  readonly conflicted: boolean;
  readonly disputed: boolean;
  /** The earliest and latest event times (ISO); null when unknown (a sharded board's row). */
  readonly created: string | null;
  readonly updated: string | null;
  /** `now` minus `created`, in ms: the age the card shows, relative to the server's clock. */
  readonly ageMs: number | null;
  /** Null when not derived here (a sharded board gathers rows only). */
  readonly blockers: readonly Blocker[] | null;
  readonly missingParents: number;
}

/** A process the board draws columns for: one per stage, in definition order. */
export interface BoardProcess {
  readonly process: string;
  readonly version: number | null;
  readonly stages: readonly string[];
}

/** `GET /api/board`: the cards, the processes they belong to, and the tickets that could not be read. */
export interface BoardModel {
  readonly at: string;
  readonly processes: readonly BoardProcess[];
  readonly cards: readonly BoardCard[];
  readonly skipped: readonly SkippedTicket[];
  /** The named definitions a new ticket can be opened on (`tik new <name>`). */
  readonly definitions: readonly string[];
}

/**
 * A card's badges: some fact has an open dispute; some fact has competing writes, even one whose
 * status says disputed (disputed beats conflicted), since the ticket page lists both. (`ls
 * --where conflicted` reads the fact status instead, as upstream's selector does.)
 */
export function cardFlags(state: TicketState): { conflicted: boolean; disputed: boolean } {
  let conflicted = false;
  let disputed = false;
  for (const [key, entry] of state.facts) {
    if (entry.disputes.length > 0) disputed = true;
    if (!conflicted && state.conflictClaims(key) !== undefined) conflicted = true;
  }
  return { conflicted, disputed };
}

/** The card of a loaded ticket derived at `now`. */
export function boardCard(t: LoadedTicket, now: Instant): BoardCard {
  const { reached, state } = t.derived;
  const settled = isSettled(t.def, reached);
  const { conflicted, disputed } = cardFlags(state);
  const blockers = settled
    ? []
    : // the ticket is already derived at \`now\`: explain that derivation rather than deriving again
      explainDerived(t.def, t.derived, now, t.roles)
        .blocks.filter((b) => b.missing.length > 0)
        .map((b) => ({ stage: b.stage, impossible: b.impossible, missing: b.missing.map((m) => reasonText(m, t.roles, t.def.stageByKey.get(b.stage))) }));
  let first = Infinity;
  let last = -Infinity;
  for (const e of t.events) {
    first = Math.min(first, e.at.ms);
    last = Math.max(last, e.at.ms);
  }
  const known = t.events.length > 0;
  return {
    ticket: t.ticket,
    title: titleOf(state),
    process: t.def.id.toString(),
    version: Number(t.def.version),
    current: [...currentStages(t.def, reached)].sort(),
    settled,
    conflicted,
    disputed,
    created: known ? instantText(new Instant(first)) : null,
    updated: known ? instantText(new Instant(last)) : null,
    ageMs: known ? Math.max(0, now.ms - first) : null,
    blockers,
    missingParents: t.missingParents.length,
  };
}

/** Newest first, then by id: the order cards stand in a column. */
export const byUpdated = (a: BoardCard, b: BoardCard): number => ((a.updated ?? '') < (b.updated ?? '') ? 1 : (a.updated ?? '') > (b.updated ?? '') ? -1 : a.ticket.localeCompare(b.ticket));

const processOf = (def: ProcessDef): BoardProcess => ({ process: def.id.toString(), version: Number(def.version), stages: def.stages.map((s) => s.key) });

/** The board of loaded tickets: one process entry per definition (by id, then version), cards newest first. */
export function boardModel(tickets: readonly LoadedTicket[], skipped: readonly SkippedTicket[], now: Instant, definitions: readonly string[]): BoardModel {
  const defs = new Map<string, ProcessDef>();
  for (const t of tickets) defs.set(`${t.def.id.toString()} ${t.def.version}`, t.def);
  const processes = [...defs.values()].sort((a, b) => a.id.toString().localeCompare(b.id.toString()) || Number(a.version) - Number(b.version)).map(processOf);
  return { at: instantText(now), processes, cards: tickets.map((t) => boardCard(t, now)).sort(byUpdated), skipped, definitions };
}

/**
 * The board from `ls --json` rows (what a sharded replica gathers from every shard): no
 * definitions, so a process's columns are its tickets' current stages in name order, and cards
 * carry no blockers, conflicts or creation time.
 */
export function boardFromRows(rows: readonly Record<string, unknown>[], skipped: readonly SkippedTicket[], now: Instant, definitions: readonly string[]): BoardModel {
  const stages = new Map<string, Set<string>>();
  const cards: BoardCard[] = rows.map((r) => {
    const current = Array.isArray(r.current) ? r.current.map(String) : [];
    const process = String(r.process ?? '');
    const set = stages.get(process) ?? new Set<string>();
    current.forEach((s) => set.add(s));
    stages.set(process, set);
    return {
      ticket: String(r.ticket),
      title: typeof r.title === 'string' ? r.title : null,
      process,
      version: null,
      current,
      settled: r.settled === true,
      conflicted: false,
      disputed: false,
      created: null,
      updated: typeof r.updated === 'string' ? r.updated : null,
      ageMs: null,
      blockers: null,
      missingParents: Array.isArray(r.missingParents) ? r.missingParents.length : 0,
    };
  });
  const processes = [...stages].sort(([a], [b]) => a.localeCompare(b)).map(([process, s]) => ({ process, version: null, stages: [...s].sort() }));
  return { at: instantText(now), processes, cards: cards.sort(byUpdated), skipped, definitions };
}
