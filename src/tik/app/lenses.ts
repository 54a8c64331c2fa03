import { emit } from '../edn/index.js';
import { Keyword, type EdnValue, type Instant } from '../edn/value.js';
import {
  currentStages,
  derive,
  effectiveReached,
  explain,
  factStatus,
  factStatusByKey,
  reasonToEdn,
  reduce,
  type CausalEntry,
  type ExplainResult,
  type ProcessDef,
  type Reason,
  type TicketState,
  type TikEvent,
  type Write,
} from '../kernel/index.js';
import { ednToJson, instantText, type Json } from './json-value.js';
import { pathText } from './reason-text.js';
import { requireDef, type OpenTicket } from './ticket-loader.js';

/**
 * The JSON shapes of the read verbs (documented in docs/tik.md). Stage keywords are strings like
 * `":triaged"`, sorted; fact values are canonical EDN text; instants ISO text.
 */

const sorted = (s: Iterable<string>): string[] => [...s].sort();

/** A reason as JSON: `{"reason": ":fact/missing", "path": [":category"], …}`. */
export const reasonJson = (r: Reason): Json => ednToJson(reasonToEdn(r));

export interface FactJson {
  [key: string]: Json;
}

function processJson(def: ProcessDef | undefined, state: TicketState): Json {
  return {
    id: state.process instanceof Keyword ? state.process.toString() : def ? def.id.toString() : null,
    version: def ? Number(def.version) : state.processVersion === undefined ? null : (ednToJson(state.processVersion) as Json),
    hash: typeof state.processHash === 'string' ? state.processHash : def ? def.hash : null,
  };
}

/** `[:link …]` and `[:title]`: facts `status --json` leaves out of `facts` (they have fields of their own). */
export const isLinkOrTitle = (path: readonly EdnValue[]): boolean =>
  path[0] === Keyword.of('link') || (path.length === 1 && path[0] === Keyword.of('title'));

/** Competing writes as JSON: `[{kind, value, by, at, event}]`. */
export const claimsJson = (claims: readonly Write[]): Json =>
  claims.map((c) => ({
    kind: c.kind,
    value: c.kind === 'assert' ? emit(c.value ?? null) : null,
    by: c.by,
    at: instantText(c.at),
    event: c.event,
  }));

/** The fact at `key` (a key of `state.facts`) as `facts` shows it: `{status, value, by, at, note?, disputes?, claims?}`; undefined when absent. */
export function factJson(state: TicketState, key: string): Record<string, Json> | undefined {
  const entry = state.facts.get(key);
  const s = factStatusByKey(state, key);
  if (s.status === 'absent' || entry === undefined) return undefined;
  const current = entry.current?.kind === 'value' ? emit(entry.current.value) : null;
  const f: Record<string, Json> = { status: s.status, value: s.status === 'present' ? emit(s.value) : current };
  if (s.status === 'present' || s.status === 'disputed' || s.status === 'retracted') {
    f.by = s.by;
    f.at = instantText(s.at);
  }
  if (s.status === 'disputed' || s.status === 'retracted') f.note = s.note === null ? null : emit(s.note);
  if (s.status === 'disputed') f.disputes = s.disputes.length;
  if (s.status === 'conflicted') f.claims = claimsJson(s.claims);
  return f;
}

/** `facts`: dotted path → `{status, value, by, at, note?}` (excluding `[:link …]` and `[:title]`). */
export function factsJson(state: TicketState): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const key of [...state.facts.keys()].sort()) {
    const path = state.facts.get(key)!.path;
    if (isLinkOrTitle(path)) continue;
    const f = factJson(state, key);
    if (f !== undefined) out[pathText(path)] = f;
  }
  return out;
}

/** The title: a present `[:title]` fact overrides the create's title. */
export function titleOf(state: TicketState): string | null {
  const t = factStatus(state, [Keyword.of('title')]);
  if (t.status === 'present') return typeof t.value === 'string' ? t.value : emit(t.value);
  return typeof state.title === 'string' ? state.title : state.title === undefined ? null : emit(state.title);
}

export interface StatusView {
  readonly json: Record<string, Json>;
  readonly explained: ExplainResult;
}

/** `status --json`: `ticket`, `title`, `process {id, version, hash}`, `current`, `reached`, `facts`, `missingParents`, … */
export function statusView(t: OpenTicket, now: Instant): StatusView {
  const def = requireDef(t);
  const explained = explain(def, t.events, now, t.roles);
  const reached = sorted(explained.reached);
  const json: Record<string, Json> = {
    ticket: t.ticket,
    title: titleOf(explained.evolution.state),
    process: processJson(def, explained.evolution.state),
    current: sorted(explained.current),
    reached,
    facts: factsJson(explained.evolution.state),
    missingParents: [...t.missingParents].sort(),
    blocked: explained.blocks.map((b) => ({
      stage: b.stage,
      missing: b.missing.map(reasonJson),
      blocks: [...b.blocks],
      impossible: b.impossible,
      ...(b.hint !== undefined ? { hint: b.hint } : {}),
    })),
    at: instantText(now),
    events: t.events.length,
  };
  return { json, explained };
}

/** `explain --json`. */
export function explainJson(t: OpenTicket, r: ExplainResult, now: Instant, forActor: string | undefined): Record<string, Json> {
  return {
    ticket: t.ticket,
    at: instantText(now),
    actor: forActor ?? null,
    reached: sorted(r.reached),
    current: sorted(r.current),
    blocks: r.blocks.map((b) => ({
      stage: b.stage,
      hint: b.hint ?? null,
      satisfied: b.satisfied.map((g) => emit(g)),
      missing: b.missing.map(reasonJson),
      blocks: [...b.blocks],
      impossible: b.impossible,
      hidden: b.hidden,
    })),
    hidden: r.hidden,
    dead: [...r.dead],
  };
}

/** Events in fold order (at, then id). */
export function foldOrdered(events: readonly TikEvent[]): TikEvent[] {
  const seen = new Set<string>();
  const unique = events.filter((e) => (seen.has(e.id) ? false : (seen.add(e.id), true)));
  return unique.sort((a, b) => a.at.ms - b.at.ms || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** `log --json`: one entry per event in fold order, with the stages newly reached at that step. */
export function logJson(t: OpenTicket, now: Instant): Json[] {
  const def = requireDef(t);
  const d = derive(def, t.events, now, t.roles);
  const byId = new Map(t.events.map((e) => [e.id, e] as const));
  let previous = new Set<string>();
  return d.timeline.map((step) => {
    const e = byId.get(step.eventId)!;
    const gained = sorted([...step.reached].filter((s) => !previous.has(s)));
    const lost = sorted([...previous].filter((s) => !step.reached.has(s)));
    previous = new Set(step.reached);
    return {
      id: e.id,
      at: instantText(e.at),
      type: e.type.toString(),
      actor: e.actor,
      parents: [...e.parents],
      body: ednToJson(e.body),
      derived: gained,
      lost,
    };
  });
}

/**
 * `diff [k]`: derive over the first `max(1, n−k)` ordered events and over all of them, both at
 * `now`; report stages gained and lost and the facts that changed (§7.3). `k` defaults to 1.
 */
export function diffJson(t: OpenTicket, now: Instant, k: number): Record<string, Json> {
  const def = requireDef(t);
  const ordered = foldOrdered(t.events);
  const n = ordered.length;
  const cut = Math.max(1, n - k);
  const before = ordered.slice(0, cut);
  const r0 = effectiveReached(def, before, now, t.roles);
  const r1 = effectiveReached(def, ordered, now, t.roles);
  const f0 = factsJson(reduce(before));
  const f1 = factsJson(reduce(ordered));
  const paths = sorted(new Set([...Object.keys(f0), ...Object.keys(f1)]));
  const facts: Json[] = [];
  for (const p of paths) {
    const a = f0[p] ?? null;
    const b = f1[p] ?? null;
    if (JSON.stringify(a) !== JSON.stringify(b)) facts.push({ path: p, before: a, after: b });
  }
  return {
    ticket: t.ticket,
    at: instantText(now),
    window: { from: cut, to: n, events: ordered.slice(cut).map((e) => e.id) },
    gained: sorted([...r1].filter((s) => !r0.has(s))),
    lost: sorted([...r0].filter((s) => !r1.has(s))),
    current: sorted(currentStages(def, r1)),
    facts,
  };
}

/** `causal --json`: `[{stage, support: [{via, events} | {via, note}]}]`, guards as EDN text. */
export function causalJson(entries: readonly CausalEntry[]): Json[] {
  return entries.map((c) => ({
    stage: c.stage,
    support: c.support.map((s): Json => ('events' in s ? { via: emit(s.via), events: [...s.events] } : { via: emit(s.via), note: s.note })),
  }));
}
