import { ednMap } from '../edn/index.js';
import { Instant, Keyword, Uuid, type EdnMap, type EdnValue } from '../edn/value.js';
import { TikError } from '../errors.js';
import { parseDurationMillis } from '../kernel/duration.js';
import { effectiveReached, foldOrder, mintEvent, type ProcessDef, type TikEvent } from '../kernel/index.js';
import { keepsRawText, parseAssignment, parseCliValue, parseKeyPath } from './kv-args.js';
import type { OpenTicket } from './ticket-loader.js';

/** The most steps one `whatif` takes (a command line, bounded like every input). */
export const MAX_WHATIF_STEPS = 256;

/** `whatif --json`: what the hypothetical steps would change, nothing written. */
export interface WhatifResult {
  readonly steps: readonly string[];
  /** Stage keywords (`":triaged"`) that would become derivable, sorted. */
  readonly gained: readonly string[];
  /** Stage keywords that would no longer derive, sorted. */
  readonly lost: readonly string[];
}

type Step =
  | { readonly op: 'advance'; readonly ms: number }
  | { readonly op: 'retract'; readonly path: readonly Keyword[] }
  | { readonly op: 'set'; readonly path: readonly Keyword[]; readonly value: EdnValue };

const kw = (t: string): Keyword => Keyword.of(t);

/** One step text: `+PT48H` (time passes), `retract:k`, or `k=v` (a value read as `set` reads it). */
function parseStep(text: string, def: ProcessDef): Step {
  if (text.startsWith('+')) {
    let ms: bigint;
    try {
      ms = parseDurationMillis(text.slice(1));
    } catch (e) {
      throw new TikError('cli/usage', `"${text}" is not a duration step: ${e instanceof Error ? e.message : String(e)}`, {
        where: 'step',
        hint: 'durations are ISO-8601 after a +, e.g. +PT48H or +P2D',
      });
    }
    if (ms > BigInt(Number.MAX_SAFE_INTEGER)) throw new TikError('cli/usage', `"${text}" is too long a duration`, { where: 'step', hint: 'e.g. +P30D' });
    return { op: 'advance', ms: Number(ms) };
  }
  if (text.startsWith('retract:')) return { op: 'retract', path: parseKeyPath(text.slice('retract:'.length), 'step') };
  const a = parseAssignment(text);
  const path = parseKeyPath(a.key, 'step');
  return { op: 'set', path, value: parseCliValue(a.valueText, { raw: keepsRawText(def.raw, path) }) };
}

/**
 * Counterfactuals (upstream's `whatif`): apply hypothetical steps to a ticket in memory and compare
 * the effective reached sets before and after. Each hypothetical event is minted by the kernel at
 * `now + 1 ms` (or 1 ms after the log's last event, if that is later) with the previous event (in
 * fold order) as its parent, by `actor`, and moves the evaluation instant to it; `+DURATION` moves
 * the evaluation instant. The derivation is the same pure function every other read runs.
 */
export function whatif(t: OpenTicket, def: ProcessDef, stepTexts: readonly string[], actor: string, now: Instant): WhatifResult {
  if (stepTexts.length > MAX_WHATIF_STEPS) {
    throw new TikError('cli/usage', `whatif takes at most ${MAX_WHATIF_STEPS} steps (got ${stepTexts.length})`, { where: 'steps', hint: 'split the scenario' });
  }
  const steps = stepTexts.map((s) => parseStep(s, def));
  const before = effectiveReached(def, t.events, now, t.roles);
  const events: TikEvent[] = [...foldOrder(t.events)];
  const ticket = new Uuid(t.ticket);
  let clock = now;
  const append = (type: string, body: EdnMap): void => {
    const previous = events[events.length - 1];
    // after every event already in the log, even when `now` (TIK_NOW, --at) is earlier than the
    // writer clock's last mint: a hypothetical step must fold last, or it changes nothing
    const at = new Instant(Math.max(clock.ms, previous?.at.ms ?? clock.ms) + 1);
    events.push(mintEvent({ ticket, type: kw(type), actor, at, parents: previous ? [previous.id] : [], body }).event);
    clock = at;
  };
  for (const s of steps) {
    if (s.op === 'advance') clock = new Instant(clock.ms + s.ms);
    else if (s.op === 'retract') append('fact/retract', ednMap([[kw('fact/path'), [...s.path]]]));
    else append('fact/assert', ednMap([[kw('fact/path'), [...s.path]], [kw('fact/value'), s.value]]));
  }
  const after = effectiveReached(def, events, clock, t.roles);
  return {
    steps: [...stepTexts],
    gained: [...after].filter((s) => !before.has(s)).sort(),
    lost: [...before].filter((s) => !after.has(s)).sort(),
  };
}
