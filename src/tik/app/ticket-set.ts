import { isCodedError } from '../../core/errors.js';
import type { EdnMap, Instant } from '../edn/value.js';
import { derive, missingParents, resolveRoles, type ProcessDef, type Roles, type TikEvent } from '../kernel/index.js';
import type { EventStore, StoredEvent } from '../store/store.js';

import { pinOf } from './pin.js';
import { parseStoredEvents, readRegister, resolveDefinition } from './ticket-loader.js';

/** How many tickets' event reads a listing keeps in flight. */
const READ_AHEAD = 16;

/** One ticket of a store-wide read (`ls`, `next`). */
export interface LoadedTicket {
  readonly ticket: string;
  readonly events: readonly TikEvent[];
  readonly def: ProcessDef;
  readonly roles: Roles;
  /** The derivation at `now` (state after all events, effective reached set). */
  readonly derived: ReturnType<typeof derive>;
  /** Parents named by these events but absent (a partial log: its derivation is provisional). */
  readonly missingParents: readonly string[];
}

/** A ticket a listing left out, and why (JSON: `{ticket, code, message}`). */
export interface SkippedTicket {
  readonly ticket: string;
  readonly code: string;
  readonly message: string;
}

/** What a store-wide read loaded, and the tickets it had to skip. */
export interface TicketSet {
  readonly tickets: readonly LoadedTicket[];
  readonly skipped: readonly SkippedTicket[];
  /** What a reader should see but can live with (a definition found by name whose hash differs from the pin). */
  readonly warnings: readonly string[];
}

/** What a caller that already did part of the work passes in (the derived index, ./ls-index.ts). */
export interface TicketSetOptions {
  /** Load only these tickets (sorted, in the store), not every ticket of the store. */
  readonly tickets?: readonly string[];
  /** The roles register, already read (`readRegister`). */
  readonly register?: EdnMap | undefined;
}

/**
 * Load every ticket of the store for a cross-ticket lens, leniently. Definitions are parsed once
 * per hash. A ticket that cannot be read or derived (malformed event, bytes not matching the name,
 * unresolvable definition, unknown guard operator) is skipped and reported in `skipped`; the
 * others still show. Only a failure of the store itself (listing its tickets) throws.
 */
export async function loadTicketSet(store: EventStore, now: Instant, options: TicketSetOptions = {}): Promise<TicketSet> {
  const skipped: SkippedTicket[] = [];
  const register = 'register' in options ? options.register : await readRegister(store);
  // One resolution per pin, by the same rules a single-ticket read uses (resolveDefinition).
  const defs = new Map<string, Promise<{ def: ProcessDef | undefined; warnings: string[] }>>();
  const warnings: string[] = [];
  const rolesByDef = new Map<ProcessDef, Roles>();
  const out: LoadedTicket[] = [];
  const ids = options.tickets ?? (await store.ticketIds());
  // Read ahead: a listing is bound by file-system round trips, so keep several tickets' reads in
  // flight while the current one is parsed and derived (in order, one at a time).
  const fetched: Promise<{ ok: true; stored: readonly StoredEvent[] } | { ok: false; error: unknown }>[] = [];
  const fetch = (i: number) => {
    if (i < ids.length && fetched[i] === undefined) {
      fetched[i] = store.events(ids[i]!).then(
        (stored) => ({ ok: true as const, stored }),
        (error: unknown) => ({ ok: false as const, error }),
      );
    }
  };
  for (let i = 0; i < ids.length; i++) {
    for (let j = i; j < i + READ_AHEAD; j++) fetch(j);
    const ticket = ids[i]!;
    const read = await fetched[i]!;
    delete fetched[i];
    try {
      if (!read.ok) throw read.error;
      const events = parseStoredEvents(ticket, read.stored);
      const { hash, name } = pinOf(events);
      const cacheKey = `${hash ?? ''}|${name ?? ''}`;
      let resolving = defs.get(cacheKey);
      if (!resolving) {
        resolving = (async () => {
          const w: string[] = [];
          const r = await resolveDefinition({ warn: (t) => w.push(t) }, store, events);
          return { def: r.def, warnings: w };
        })();
        defs.set(cacheKey, resolving);
      }
      const { def, warnings: pinWarnings } = await resolving;
      for (const w of pinWarnings) warnings.push(`ticket ${ticket}: ${w}`);
      if (!def) {
        skipped.push({ ticket, code: 'process/unresolved', message: `its process definition cannot be found (${hash ?? name ?? 'no create event'})` });
        continue;
      }
      let roles = rolesByDef.get(def);
      if (!roles) {
        roles = resolveRoles(def, register);
        rolesByDef.set(def, roles);
      }
      // Derive here, inside the per-ticket guard: a definition that throws (an unknown guard
      // operator) costs that ticket, not the whole listing.
      out.push({ ticket, events, def, roles, derived: derive(def, events, now, roles), missingParents: [...missingParents(events)].sort() });
    } catch (e) {
      if (!isCodedError(e)) throw e;
      skipped.push({ ticket, code: e.code, message: e.message });
    }
  }
  return { tickets: out, skipped, warnings };
}
