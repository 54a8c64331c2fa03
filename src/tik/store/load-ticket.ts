/**
 * Loading one ticket for a read (T3: a derivation reads one ticket's log and nothing else, plus
 * its pinned definition and the roles register). Bad data degrades the read instead of
 * crashing it: an event file that does not parse or does not hash to its name is left out and
 * reported, missing parents are reported, an unresolvable pin leaves `definition` undefined.
 */
import { CodedError } from '../../core/errors.js';
import { readEdnBytes } from '../edn/index.js';
import { eventFromMap, missingParents, reduce, type ProcessDef, type Roles, type TicketState, type TikEvent } from '../kernel/index.js';
import { problem, type StoreProblem } from './problem.js';
import { LoadContext, describe, pinOf, type Pin } from './resolve-pin.js';
import type { EventStore, StoredEvent } from './store.js';
import { checkTicket, sha256Id } from './store-names.js';

export interface LoadedTicket {
  readonly ticket: string;
  /** Every stored event, as bytes, including ones left out of `events`. */
  readonly stored: readonly StoredEvent[];
  /** The events that parse, hash to their names and belong to this ticket. Unordered. */
  readonly events: readonly TikEvent[];
  readonly state: TicketState;
  readonly pin: Pin;
  readonly definition: ProcessDef | undefined;
  readonly definitionSource: 'by-hash' | 'named' | undefined;
  /** Definition roles merged with `roles.edn`; undefined without a definition. */
  readonly roles: Roles | undefined;
  /** Parent ids referenced but absent, sorted (a partial log, §3.7). */
  readonly missingParents: readonly string[];
  /** Things that make the read wrong or impossible (bad event files, an unresolved pin). */
  readonly problems: readonly StoreProblem[];
  /** Things a reader should print but can live with (missing parents, a named fallback that differs). */
  readonly warnings: readonly StoreProblem[];
}

/** Relative path of an event file, for messages. */
export const eventFile = (ticket: string, id: string): string => `tickets/${ticket}/events/${id}.edn`;

/** Parses stored events, leaving out (and reporting) the ones a reader must not trust. */
export function admitEvents(ticket: string, stored: readonly StoredEvent[]): { events: TikEvent[]; problems: StoreProblem[] } {
  const events: TikEvent[] = [];
  const problems: StoreProblem[] = [];
  for (const s of stored) {
    const where = eventFile(ticket, s.id);
    const actual = sha256Id(s.bytes);
    if (actual !== s.id) {
      problems.push(
        problem('event/hash-mismatch', `${where} hashes to ${actual}, not to its name`, {
          where,
          event: s.id,
          hint: 'the file was edited or renamed; restore it from a replica',
        }),
      );
      continue;
    }
    let e: TikEvent;
    try {
      e = eventFromMap(readEdnBytes(s.bytes, where), s.id, where);
    } catch (err) {
      problems.push(problem('event/malformed', `${where} is not a readable event: ${describe(err)}`, { where, event: s.id }));
      continue;
    }
    if (e.ticket.text !== ticket) {
      problems.push(
        problem('event/wrong-ticket', `${where} belongs to ticket ${e.ticket.text}`, {
          where,
          event: s.id,
          hint: 'an event lives under the ticket its :event/ticket names',
        }),
      );
      continue;
    }
    events.push(e);
  }
  return { events, problems };
}

/**
 * Loads a ticket: its events, reduced state, pinned definition (by-hash, else named with a
 * warning if the hash differs) and resolved roles. Throws only for a malformed ticket id or an
 * I/O failure; everything else (an unreadable pack too) is in `problems`/`warnings`.
 */
export async function loadTicket(store: EventStore, ticket: string, context: LoadContext = new LoadContext(store)): Promise<LoadedTicket> {
  checkTicket(ticket);
  let stored: readonly StoredEvent[];
  let unreadable: StoreProblem | undefined;
  try {
    stored = await store.events(ticket);
  } catch (e) {
    // A log the store cannot read at all (e.g. a corrupt pack index) is a problem, not a crash.
    if (!(e instanceof CodedError) || e.code === 'store/io') throw e;
    stored = [];
    unreadable = problem('ticket/unreadable', `ticket ${ticket} cannot be read: ${e.message}`, {
      where: e.where ?? `tickets/${ticket}`,
      ...(e.hint ? { hint: e.hint } : {}),
    });
  }
  const { events, problems } = admitEvents(ticket, stored);
  const warnings: StoreProblem[] = [];
  if (unreadable) problems.push(unreadable);
  else if (stored.length === 0) {
    problems.push(problem('ticket/empty', `ticket ${ticket} has no events`, { where: `tickets/${ticket}` }));
  }
  const missing = missingParents(events);
  if (missing.length > 0) {
    warnings.push(
      problem('ticket/missing-parents', `log INCOMPLETE: ${missing.length} parent event(s) absent: ${missing.join(', ')}`, {
        where: `tickets/${ticket}`,
        hint: 'sync the missing events from a replica; until then concurrency may look like conflict',
      }),
    );
  }
  const state = reduce(events);
  const pin = pinOf(state);
  let definition: ProcessDef | undefined;
  let definitionSource: LoadedTicket['definitionSource'];
  let roles: Roles | undefined;
  if (stored.length > 0) {
    const r = await context.resolve(pin);
    problems.push(...r.problems);
    warnings.push(...r.warnings);
    definition = r.definition;
    definitionSource = r.source;
    if (definition) {
      const rr = await context.roles(definition);
      roles = rr.roles;
      problems.push(...rr.problems);
    }
  }
  return Object.freeze({
    ticket,
    stored,
    events: Object.freeze(events),
    state,
    pin,
    definition,
    definitionSource,
    roles,
    missingParents: Object.freeze([...missing].sort()),
    problems: Object.freeze(problems),
    warnings: Object.freeze(warnings),
  });
}
