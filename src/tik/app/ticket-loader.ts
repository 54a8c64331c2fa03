/**
 * The one ticket loader of the application layer: a ticket's stored events parsed (each file's
 * bytes checked against its name), its pinned definition resolved (§4.2) and the roles register
 * merged. A single-ticket read loads strictly (the first problem is a `TikError`); a listing loads
 * leniently (see `ticket-set.ts`): a bad ticket is skipped and reported, never the whole store.
 */
import { readEdn } from '../edn/index.js';
import { isMap, type EdnMap } from '../edn/value.js';
import { TikError } from '../errors.js';
import { missingParents, parseEvent, parseProcess, resolveRoles, type ProcessDef, type Roles, type TikEvent } from '../kernel/index.js';
import { resolveTicket } from '../store/resolve-ticket.js';
import type { EventStore } from '../store/store.js';
import { sha256Id } from '../store/store-names.js';
import { pinOf, type Pin } from './pin.js';
import { effectiveRegister } from '../roles/effective-register.js';

/** Where a loader reports what a reader should see but can live with (a CLI prints it on stderr). */
export interface WarningSink {
  warn(text: string): void;
}

/** A ticket as the read and write operations see it. */
export interface OpenTicket {
  readonly ticket: string;
  readonly events: readonly TikEvent[];
  /** The pinned definition, or undefined when it cannot be resolved (then reads fail clearly). */
  readonly def: ProcessDef | undefined;
  readonly roles: Roles;
  readonly missingParents: readonly string[];
  /** Where the definition came from: `by-hash`, `named` (fallback), or why it is missing. */
  readonly defSource: string;
}

/** The path of an event as messages name it: relative to the store, never the server's disk layout. */
const eventWhere = (ticket: string, id: string): string => `tickets/${ticket}/events/${id}.edn`;

/** Parse a ticket's stored events, checking that each file's bytes hash to its name. */
export function parseStoredEvents(ticket: string, stored: readonly { id: string; bytes: Uint8Array }[]): TikEvent[] {
  return stored.map(({ id, bytes }) => {
    checkBytes(ticket, id, bytes);
    return parseEvent(Buffer.from(bytes).toString('utf8'), id, eventWhere(ticket, id));
  });
}

/** Whether every stored event's bytes hash to its name. */
export const bytesMatchNames = (stored: readonly { id: string; bytes: Uint8Array }[]): boolean => stored.every(({ id, bytes }) => sha256Id(bytes) === id);

function checkBytes(ticket: string, id: string, bytes: Uint8Array): void {
  const actual = sha256Id(bytes);
  if (actual !== id) {
    const file = eventWhere(ticket, id);
    throw new TikError('event/hash-mismatch', `the bytes of ${file} hash to ${actual}, not to its name`, {
      where: file,
      hint: 'an event file must never be edited; restore it from another replica, or run tik verify',
    });
  }
}

/** Read the roles register in effect (the replicated roles ticket, else `roles.edn`), if any. */
export async function readRegister(store: EventStore): Promise<EdnMap | undefined> {
  // the replicated roles ticket when it holds a register, else roles.edn (docs/tik-sync.md, "Roles")
  return parseRegister((await effectiveRegister(store)).text);
}

/** The register from its text (`effectiveRegister(store).text`); throws `store/bad-roles` for a non-map. */
export function parseRegister(text: string | undefined): EdnMap | undefined {
  if (text === undefined) return undefined;
  const v = readEdn(text, 'roles.edn');
  if (!isMap(v)) {
    throw new TikError('store/bad-roles', 'roles.edn is not a map {role {:members [...]}}', { where: 'roles.edn', hint: 'e.g. {:triager {:members ["seb"]}}' });
  }
  return v;
}

/**
 * Resolve a ticket's pinned definition (§4.2): the pinned hash → `processes/by-hash/<hash>.edn`
 * (checked to hash to its name); else the named `processes/<name>.edn`, warning if its hash
 * differs from the pin.
 */
export async function resolveDefinition(sink: WarningSink | undefined, store: EventStore, events: readonly TikEvent[]): Promise<{ def: ProcessDef | undefined; source: string }> {
  return resolvePin(sink, store, pinOf(events));
}

/**
 * Definitions parsed lately, by file and text: a replica resolves the same few pins on every
 * read, and a definition is a function of its text (an edited file is a different key).
 */
const parsed = new Map<string, ProcessDef>();

function parseDefinition(text: string, file: string): ProcessDef {
  const key = `${file}\n${text}`;
  let def = parsed.get(key);
  if (def === undefined) {
    def = parseProcess(readEdn(text, file), file);
    if (parsed.size >= 64) parsed.delete(parsed.keys().next().value!);
    parsed.set(key, def);
  }
  return def;
}

/** `resolveDefinition` of a pin already read from the events. */
export async function resolvePin(sink: WarningSink | undefined, store: EventStore, { hash, name }: Pin): Promise<{ def: ProcessDef | undefined; source: string }> {
  if (hash !== undefined) {
    const text = await store.readProcessByHash(hash);
    if (text !== undefined) {
      const file = `processes/by-hash/${hash}.edn`;
      const def = parseDefinition(text, file);
      if (def.hash !== hash) {
        throw new TikError('process/hash-mismatch', `${file} hashes to ${def.hash}, not to its name`, {
          where: file,
          hint: 'an archived definition must never be edited; restore it or run tik verify',
        });
      }
      return { def, source: 'by-hash' };
    }
  }
  if (name !== undefined) {
    const text = await store.readNamedProcess(name).catch(() => undefined);
    if (text !== undefined) {
      const file = `processes/${name}.edn`;
      const def = parseDefinition(text, file);
      if (hash !== undefined && def.hash !== hash) sink?.warn(`the pinned definition ${hash} is not archived; using ${file} (${def.hash}), which differs`);
      return { def, source: 'named' };
    }
  }
  return { def: undefined, source: hash ? `missing ${hash}` : name ? `missing processes/${name}.edn` : 'no create event' };
}

const FULL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Resolve a prefix and load the ticket strictly. A full id the store holds is read directly — no
 * listing of every ticket (T3: a read touches one ticket); anything else is resolved by prefix.
 */
export async function openTicket(sink: WarningSink | undefined, store: EventStore, prefix: string): Promise<OpenTicket> {
  const { ticket, found } = await locateTicket(store, prefix, (id) => store.events(id));
  return loadTicketAt(sink, store, ticket, found);
}

/**
 * The ticket a prefix names and `read` of it (its events, or their ids). A full id is read
 * directly, and kept when `read` finds something; anything else is resolved by prefix first.
 */
export async function locateTicket<T extends { readonly length: number }>(store: EventStore, prefix: string, read: (ticket: string) => Promise<T>): Promise<{ ticket: string; found: T }> {
  const id = typeof prefix === 'string' ? prefix.trim().toLowerCase() : '';
  if (FULL_ID.test(id)) {
    const found = await read(id);
    if (found.length > 0) return { ticket: id, found };
  }
  const ticket = await resolveTicket(store, prefix);
  return { ticket, found: await read(ticket) };
}

/**
 * Load one ticket strictly: a malformed event or an archive that lies is a `TikError`. `registerText`
 * is the roles register's text when the caller has read it already (`effectiveRegister`).
 */
export async function loadTicketAt(
  sink: WarningSink | undefined,
  store: EventStore,
  ticket: string,
  stored?: readonly { id: string; bytes: Uint8Array }[],
  registerText?: { readonly text: string | undefined },
): Promise<OpenTicket> {
  const events = parseStoredEvents(ticket, stored ?? (await store.events(ticket)));
  const { def, source } = await resolveDefinition(sink, store, events);
  const register = registerText ? parseRegister(registerText.text) : await readRegister(store);
  const roles: Roles = def ? resolveRoles(def, register) : new Map();
  const missing = missingParents(events);
  if (missing.length > 0) sink?.warn(incompleteLog(ticket, missing.length));
  return { ticket, events, def, roles, missingParents: missing, defSource: source };
}

/** The warning a read of a ticket with `missing` parent events absent gives. */
export const incompleteLog = (ticket: string, missing: number): string => `ticket ${ticket}: log INCOMPLETE, ${missing} parent event(s) missing`;

/** The definition of an open ticket, or a clear error when the pin cannot be resolved. */
export function requireDef(t: OpenTicket): ProcessDef {
  if (!t.def) {
    throw new TikError('process/unresolved', `ticket ${t.ticket}: its process definition cannot be found (${t.defSource})`, {
      where: t.ticket,
      hint: 'restore processes/by-hash/<hash>.edn or processes/<name>.edn from another replica',
    });
  }
  return t.def;
}
