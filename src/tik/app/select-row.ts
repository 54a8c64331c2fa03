import { emit } from '../edn/index.js';
import type { EdnValue } from '../edn/value.js';
import { factMap, factStatusByKey, K, type SelectRow } from '../kernel/index.js';
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

/**
 * A ticket's row for `ls --where` / `search` (kernel/select.ts). The haystack is the title and the
 * present facts as EDN text (`{[:severity] :high, …}`), lower-cased, as upstream builds it (its
 * map order differs, which only a search for a whole multi-fact substring could notice).
 * `signed` is the set of signed event ids, given only when the selector reads signatures.
 */
export function selectRow(t: LoadedTicket, current: readonly string[], signed?: ReadonlySet<string>): SelectRow {
  const { state } = t.derived;
  const facts = new Map<string, EdnValue>();
  const printed: string[] = [];
  for (const { path, value } of factMap(state).values()) {
    facts.set(pathText(path), value);
    printed.push(`${emit(path)} ${emit(value)}`);
  }
  let disputed = false;
  let conflicted = false;
  for (const key of state.facts.keys()) {
    const s = factStatusByKey(state, key).status;
    if (s === 'disputed') disputed = true;
    else if (s === 'conflicted') conflicted = true;
  }
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
    unsigned: signed !== undefined && t.events.some((e) => !signed.has(e.id)),
  };
}

