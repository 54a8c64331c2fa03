/**
 * The `ls` index (issue 18; ADR 0013: derived data, never authority): per ticket, the `ls` row of
 * its last derivation, kept in the store's derived directory and served instead of reading,
 * parsing and deriving the ticket again while its key still holds:
 * - the ticket's event-set digest (SHA-256 of its sorted event ids, from the store's byte-free id
 *   listing): an event that arrives by any route (a write, sync, a file copied in) changes it;
 * - its pin and the hash of the definition the pin resolves to now (one resolution per pin);
 * - the digest of the roles register in effect (for the whole index);
 * - the derivation window (kernel `derivationWindow`): the instants over which its time guards
 *   cannot change the answer; outside it (time passed, or `TIK_NOW`/`--at` elsewhere) the ticket
 *   is derived again.
 * Every other ticket (a miss) is loaded and derived as without the index, and the index is
 * rewritten with the new entries. Tickets a listing skips, and those whose definition is found by
 * name with a hash other than the pin (a warning), are never kept. A missing, truncated, corrupt or
 * foreign index file reads as empty, so deleting it changes no answer, only the time it takes.
 *
 * Not detected: an event file edited in place under its own name (or a pack file removed under its
 * index), which breaks the store's append-only contract; `tik verify` reports it, and deleting the
 * index (`.tik-index/`) makes `ls` report it too.
 */
import { isCodedError } from '../../core/errors.js';
import { sha256Hex } from '../../core/hash.js';
import type { Instant } from '../edn/value.js';
import { derivationWindow } from '../kernel/index.js';
import { effectiveRegister } from '../roles/effective-register.js';
import { readDerived, writeDerived } from '../store/derived-file.js';
import type { EventStore, EventRef } from '../store/store.js';
import { lsRow, type LsRow } from './ls-row.js';
import { pinOf } from './pin.js';
import { parseRegister, resolvePin } from './ticket-loader.js';
import { loadTicketSet, type TicketSet } from './ticket-set.js';

const FILE = 'ls.json';
/** Bump when a derivation or the row changes meaning: an index of another format reads as empty. */
const FORMAT = 'tik-ls-index/1';

/** One ticket's entry: its key, its window (null: unbounded) and its row without the ticket id. */
interface Entry {
  readonly digest: string;
  readonly pinHash: string | null;
  readonly pinName: string | null;
  readonly def: string;
  readonly from: number | null;
  readonly until: number | null;
  readonly row: Omit<LsRow, 'ticket'>;
}

interface IndexDoc {
  /** Digest of the roles register the entries were derived under. */
  readonly register: string;
  readonly entries: Record<string, Entry>;
}

/** The rows of every readable ticket (in ticket order), what was skipped, and how many came from the index. */
export interface IndexedRows {
  readonly rows: readonly LsRow[];
  readonly skipped: TicketSet['skipped'];
  readonly warnings: TicketSet['warnings'];
  readonly hits: number;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const isBound = (v: unknown): v is number | null => v === null || typeof v === 'number';

/** The entry if it has the shape this format writes (a checksummed file of this format always has). */
function entryOf(v: unknown): Entry | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const e = v as Record<string, unknown>;
  const r = e.row as Record<string, unknown> | null | undefined;
  const ok =
    isString(e.digest) &&
    (e.pinHash === null || isString(e.pinHash)) &&
    (e.pinName === null || isString(e.pinName)) &&
    isString(e.def) &&
    isBound(e.from) &&
    isBound(e.until) &&
    typeof r === 'object' &&
    r !== null &&
    (r.title === null || isString(r.title)) &&
    isString(r.process) &&
    isStrings(r.current) &&
    isStrings(r.reached) &&
    typeof r.settled === 'boolean' &&
    typeof r.events === 'number' &&
    (r.updated === null || isString(r.updated)) &&
    isStrings(r.missingParents);
  return ok ? (v as Entry) : undefined;
}

async function readIndex(dir: string, register: string): Promise<Record<string, unknown>> {
  const doc = (await readDerived(dir, FILE, FORMAT)) as Partial<IndexDoc> | undefined;
  if (typeof doc !== 'object' || doc === null || doc.register !== register) return {};
  return typeof doc.entries === 'object' && doc.entries !== null ? doc.entries : {};
}

/** Sorted event ids per ticket, from the byte-free listing. */
function idsByTicket(refs: readonly EventRef[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const { ticket, id } of refs) {
    const ids = out.get(ticket);
    if (ids) ids.push(id);
    else out.set(ticket, [id]);
  }
  return out;
}

const eventSetDigest = (ids: string[]): string => sha256Hex(ids.sort().join('\n'));
const pinKey = (hash: string | null, name: string | null): string => `${hash ?? ''}|${name ?? ''}`;

/**
 * The `ls` rows at `now` through the store's index; undefined when the store keeps no derived data
 * or cannot list ids without bytes (then the caller loads every ticket).
 */
export async function indexedLsRows(store: EventStore, now: Instant): Promise<IndexedRows | undefined> {
  const dir = store.derivedDir;
  if (dir === undefined || store.allEventIds === undefined) return undefined;
  // the same order of failures as a listing without the index: the register, then the store
  const reg = await effectiveRegister(store);
  const register = parseRegister(reg.text);
  const registerDigest = reg.text === undefined ? 'none' : sha256Hex(reg.text);
  const tickets = await store.ticketIds();
  let refs: readonly EventRef[];
  try {
    refs = await store.allEventIds();
  } catch (e) {
    // a damaged pack index: a listing without the index skips that ticket, so take that road
    if (isCodedError(e) && e.code !== 'store/io') return undefined;
    throw e;
  }
  const ids = idsByTicket(refs);
  const stored = await readIndex(dir, registerDigest);

  // Candidates: the event set and the window still hold; the definition is checked per pin below.
  const digests = new Map<string, string>();
  const candidates = new Map<string, Entry>();
  for (const t of tickets) {
    const own = ids.get(t);
    if (own === undefined) continue;
    const digest = eventSetDigest(own);
    digests.set(t, digest);
    const e = Object.hasOwn(stored, t) ? entryOf(stored[t]) : undefined;
    if (e === undefined || e.digest !== digest) continue;
    if ((e.from !== null && now.ms < e.from) || (e.until !== null && now.ms >= e.until)) continue;
    candidates.set(t, e);
  }
  const defHashOf = new Map<string, string | undefined>();
  for (const e of candidates.values()) {
    const key = pinKey(e.pinHash, e.pinName);
    if (defHashOf.has(key)) continue;
    let hash: string | undefined;
    try {
      const warned: string[] = [];
      const r = await resolvePin({ warn: (w) => warned.push(w) }, store, { hash: e.pinHash ?? undefined, name: e.pinName ?? undefined });
      // a pin that resolves only with a warning is never served from the index
      if (warned.length === 0) hash = r.def?.hash;
    } catch (err) {
      if (!isCodedError(err)) throw err;
    }
    defHashOf.set(key, hash);
  }

  const hit = new Map<string, Entry>();
  for (const [t, e] of candidates) if (defHashOf.get(pinKey(e.pinHash, e.pinName)) === e.def) hit.set(t, e);
  const misses = tickets.filter((t) => !hit.has(t));
  const set = misses.length > 0 ? await loadTicketSet(store, now, { tickets: misses, register }) : { tickets: [], skipped: [], warnings: [] };

  const fresh = new Map<string, LsRow>();
  const entries: Record<string, Entry> = {};
  for (const [t, e] of hit) entries[t] = e;
  for (const t of set.tickets) {
    const row = lsRow(t);
    fresh.set(t.ticket, row);
    const pin = pinOf(t.events);
    const digest = digests.get(t.ticket);
    if (digest === undefined || (pin.hash !== undefined && pin.hash !== t.def.hash)) continue;
    const w = derivationWindow(t.def, t.events, now.ms);
    const { ticket: _ticket, ...rest } = row;
    entries[t.ticket] = {
      digest,
      pinHash: pin.hash ?? null,
      pinName: pin.name ?? null,
      def: t.def.hash,
      from: Number.isFinite(w.from) ? w.from : null,
      until: Number.isFinite(w.until) ? w.until : null,
      row: rest,
    };
  }
  const changed = fresh.size > 0 || Object.keys(stored).length !== hit.size;
  if (changed) await writeDerived(dir, FILE, FORMAT, { register: registerDigest, entries } satisfies IndexDoc);

  const rows: LsRow[] = [];
  for (const t of tickets) {
    const e = hit.get(t);
    if (e !== undefined) rows.push({ ticket: t, ...e.row });
    else {
      const r = fresh.get(t);
      if (r !== undefined) rows.push(r);
    }
  }
  return { rows, skipped: set.skipped, warnings: set.warnings, hits: hit.size };
}
