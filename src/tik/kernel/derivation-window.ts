/**
 * The time window of a derivation (issue 18): the half-open interval of instants `[from, until)`
 * around `now` over which `derive(def, events, t, roles)` gives the same answer for every `t`.
 * A derived index keeps a derivation only for its window (its "time guards"); outside it the
 * ticket is derived again.
 *
 * `t` reaches a derivation only through its two time guards (the evolve fold derives each prefix
 * at `min(e.at, t)`, which moves with `t` until it stops; either way only time guards read it),
 * so it can change only at these instants (a superset is safe, it only narrows the window):
 * - `createdAt + d` for every `[:elapsed-since :ticket/create d]` (it holds from that instant on),
 *   `createdAt` being the `:at` of any create event (the fold keeps the last one applied);
 * - `at + d + 1 ms` for every `:attestation/add` and every `[:attested-within claim d]` (it holds
 *   up to and including `at + d`).
 * Between two consecutive such instants every clamp and every time guard is constant.
 */
import { Keyword, type EdnValue } from '../edn/value.js';
import { durationMillisCeil, durationMillisFloor } from './checks.js';
import type { TikEvent } from './event.js';
import type { ProcessDef } from './process.js';

/** `[from, until)` in epoch ms; `-Infinity` / `Infinity` when unbounded. */
export interface DerivationWindow {
  readonly from: number;
  readonly until: number;
}

const ELAPSED = Keyword.of('elapsed-since');
const WITHIN = Keyword.of('attested-within');

/** The durations (ms) of every time guard of a definition, nested ones included; malformed ones are skipped (they never hold or fail by time). */
function timeGuardDurations(def: ProcessDef): { elapsed: number[]; within: number[] } {
  const elapsed: number[] = [];
  const within: number[] = [];
  const visit = (form: EdnValue): void => {
    if (!Array.isArray(form)) return;
    const f = form as readonly EdnValue[];
    const text = f[2];
    if (typeof text === 'string' && (f[0] === ELAPSED || f[0] === WITHIN)) {
      try {
        if (f[0] === ELAPSED) elapsed.push(durationMillisCeil(text));
        else within.push(durationMillisFloor(text));
      } catch {
        // an invalid duration makes the guard malformed at every instant
      }
    }
    for (const x of f) visit(x);
  };
  for (const s of def.stages) for (const g of s.guards) visit(g);
  return { elapsed, within };
}

/** The window around `nowMs` over which the derivation of `events` under `def` does not change. */
export function derivationWindow(def: ProcessDef, events: readonly TikEvent[], nowMs: number): DerivationWindow {
  const { elapsed, within } = timeGuardDurations(def);
  let from = -Infinity;
  let until = Infinity;
  const edge = (c: number): void => {
    if (c <= nowMs) {
      if (c > from) from = c;
    } else if (c < until) until = c;
  };
  for (const e of events) {
    const type = e.type.toString();
    if (type === ':ticket/create') for (const d of elapsed) edge(e.at.ms + d);
    else if (type === ':attestation/add') for (const d of within) edge(e.at.ms + d + 1);
  }
  return { from, until };
}
