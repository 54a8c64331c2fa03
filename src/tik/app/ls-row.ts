/**
 * One row of `ls --json` (docs/tik.md): a ticket's title, process, current and reached stages,
 * whether it is settled, its event count, last update and missing parents. Built from a loaded
 * ticket, or served from the derived index (./ls-index.ts), which keeps exactly these fields.
 */
import type { Instant } from '../edn/value.js';
import { currentStages, isSettled } from '../kernel/index.js';
import { instantText, type Json } from './json-value.js';
import { titleOf } from './lenses.js';
import type { LoadedTicket } from './ticket-set.js';

/** The row, in the key order `ls --json` prints. */
export interface LsRow {
  readonly ticket: string;
  readonly title: string | null;
  readonly process: string;
  readonly current: readonly string[];
  readonly reached: readonly string[];
  readonly settled: boolean;
  readonly events: number;
  readonly updated: string | null;
  readonly missingParents: readonly string[];
}

/** The row of a loaded, derived ticket. */
export function lsRow(t: LoadedTicket): LsRow {
  const { reached, state } = t.derived;
  let last: Instant | undefined;
  for (const e of t.events) if (last === undefined || e.at.ms > last.ms) last = e.at;
  return {
    ticket: t.ticket,
    title: titleOf(state),
    process: t.def.id.toString(),
    current: [...currentStages(t.def, reached)].sort(),
    reached: [...reached].sort(),
    settled: isSettled(t.def, reached),
    events: t.events.length,
    updated: last !== undefined ? instantText(last) : null,
    missingParents: [...t.missingParents],
  };
}

/** The row as the JSON value `ls --json` prints. */
export const lsRowJson = (r: LsRow): Record<string, Json> => ({ ...r, current: [...r.current], reached: [...r.reached], missingParents: [...r.missingParents] });
