import { emit } from '../edn/index.js';
import type { EdnValue } from '../edn/value.js';
import { factMap, factStatusByKey, K, strOf, type SelectRow, type TicketState } from '../kernel/index.js';
import { titleOf } from './lenses.js';
import { pathText } from './reason-text.js';
import type { LoadedTicket } from './ticket-set.js';

/** The ids of a ticket's events that carry at least one authorship signature (`<id>.sig.<fpr16>`). */
export function signedEventIds(sidecarNames: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const name of sidecarNames) {
    const i = name.indexOf('.sig.');
    if (i > 0) out.add(name.slice(0, i));
  }
  return out;
}

/** Whether some fact of the ticket is disputed, and whether some is conflicted. */
export function factFlags(state: TicketState): { disputed: boolean; conflicted: boolean } {
  let disputed = false;
  let conflicted = false;
  for (const key of state.facts.keys()) {
    const s = factStatusByKey(state, key).status;
    if (s === 'disputed') disputed = true;
    else if (s === 'conflicted') conflicted = true;
  }
  return { disputed, conflicted };
}

/** What a selector reads of a ticket but its signatures: a function of its log alone, so the ls index keeps it. */
export type SelectFields = Omit<SelectRow, 'unsigned'>;

/**
 * A ticket's row for `ls --where` / `search` (kernel/select.ts), without signatures. The haystack
 * is the title and the present facts as EDN text (`{[:severity] :high, …}`), lower-cased, as
 * upstream builds it (its map order differs, which only a search for a whole multi-fact substring
 * could notice).
 */
export function selectFields(t: LoadedTicket, current: readonly string[]): SelectFields {
  const { state } = t.derived;
  const facts = new Map<string, EdnValue>();
  const printed: string[] = [];
  for (const { path, value } of factMap(state).values()) {
    facts.set(pathText(path), value);
    printed.push(`${emit(path)} ${emit(value)}`);
  }
  const { disputed, conflicted } = factFlags(state);
  const actors = new Set<string>();
  const derivedFrom = new Set<string>();
  for (const e of t.events) {
    actors.add(e.actor);
    const from = e.body.get(K.artifactDerivedFrom);
    if (typeof from === 'string') derivedFrom.add(from);
  }
  const title = titleOf(state);
  return {
    current: new Set(current),
    facts,
    actors,
    derivedFrom,
    haystack: `${title ?? ''} {${printed.join(', ')}}`.toLowerCase(),
    disputed,
    conflicted,
  };
}

/**
 * The whole row: `unsigned` (some event has no authorship signature) from the ticket's event ids
 * and its signed ids, given only when the selector reads signatures.
 */
export function withSignatures(fields: SelectFields, eventIds: readonly string[], signed?: ReadonlySet<string>): SelectRow {
  return { ...fields, unsigned: signed !== undefined && eventIds.some((id) => !signed.has(id)) };
}

/**
 * The fields as the ls index keeps them, one JSON text (parsed only by a run with a selector):
 * `[[[path, value text]…], actors, derivedFrom, haystack, disputed, conflicted]`. A fact value is
 * kept as the text `fact:path=value` compares (kernel `strOf`), which a selector reads alone.
 */
export function selectFieldsText(f: SelectFields): string {
  return JSON.stringify([[...f.facts].map(([p, v]) => [p, strOf(v)]), [...f.actors], [...f.derivedFrom], f.haystack, f.disputed, f.conflicted]);
}

/** The fields back from `selectFieldsText`, with the current stages of the same entry. */
export function selectFieldsFrom(text: string, current: readonly string[]): SelectFields {
  const [facts, actors, derivedFrom, haystack, disputed, conflicted] = JSON.parse(text) as [[string, string][], string[], string[], string, boolean, boolean];
  return { current: new Set(current), facts: new Map(facts), actors: new Set(actors), derivedFrom: new Set(derivedFrom), haystack, disputed, conflicted };
}
