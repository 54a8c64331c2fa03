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
 * Beside it, for `ls --where` and `search`, `select.json` keeps per ticket what a selector reads of
 * it (./select-row.ts; everything but signatures, which come and go without an event and are read
 * from the store when a selector asks). That depends on the events alone, so it is keyed by the
 * event-set digest only; a ticket whose select entry does not hold is a miss of a selecting run.
 * A separate file, so `ls` without a selector neither reads nor authenticates it.
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
import type { Instant } from '../edn/value.js';
import { derivationWindow } from '../kernel/index.js';
import { effectiveRegister } from '../roles/effective-register.js';
import { readDerived, writeDerived } from '../store/derived-file.js';
import type { EventStore } from '../store/store.js';
import { lsRow, type LsRow } from './ls-row.js';
import { selectFields, selectFieldsFrom, selectFieldsText, type SelectFields } from './select-row.js';
import { pinOf } from './pin.js';
import { eventSetDigest, pinResolvesTo } from './derivation-key.js';
import { parseRegister } from './ticket-loader.js';
import { loadTicketSet, type TicketSet } from './ticket-set.js';

const FILE = 'ls.json';
/** Bump when a derivation or the row changes meaning: an index of another format reads as empty. */
const FORMAT = 'tik-ls-index/2';
const SELECT_FILE = 'select.json';
const SELECT_FORMAT = 'tik-select-index/1';

/**
 * What a pin resolved to: `[pin hash, pin name, definition hash, process id]` (nulls for absent);
 * entries name it by position, so the few distinct pins are written once.
 */
type PinEntry = [string | null, string | null, string, string];

/**
 * One ticket, positional to keep a 10k-ticket index small and quick to parse:
 * `[ticket, event-set digest, pin position, from, until, title, current, reached, settled, events,
 * updated, missingParents]`; `from`/`until` are the derivation window (null: unbounded).
 */
type Entry = [string, string, number, number | null, number | null, string | null, string[], string[], boolean, number, string | null, string[]];

/** One ticket of `select.json`: `[ticket, event-set digest, select fields as JSON text]`, sorted by ticket. */
type SelectEntry = [string, string, string];

interface IndexDoc {
  /** Digest of the roles register the entries were derived under. */
  readonly register: string;
  readonly pins: PinEntry[];
  /** Sorted by ticket, as `ticketIds` lists them. */
  readonly entries: Entry[];
}

/** The rows of every readable ticket (in ticket order), what was skipped, and how many came from the index. */
export interface IndexedRows {
  readonly rows: readonly LsRow[];
  /**
   * Asked for with `select`: per row, what a selector reads of it but signatures, and its event
   * ids; with `select: 'stages'`, a row served from the index holds its current stages only.
   */
  readonly select?: readonly { readonly fields: SelectFields; readonly eventIds: readonly string[] }[];
  readonly skipped: TicketSet['skipped'];
  readonly warnings: TicketSet['warnings'];
  readonly hits: number;
}

/** The stored index, or an empty one when it is absent, damaged, of another format or register. */
async function readIndex(dir: string, register: string): Promise<{ pins: PinEntry[]; entries: Entry[] }> {
  const doc = (await readDerived(dir, FILE, FORMAT)) as Partial<IndexDoc> | undefined;
  // the checksum vouches for the shape below the top level (only this code writes this format)
  if (typeof doc !== 'object' || doc === null || doc.register !== register || !Array.isArray(doc.pins) || !Array.isArray(doc.entries)) return { pins: [], entries: [] };
  return { pins: doc.pins, entries: doc.entries };
}

/** The stored select entries by ticket (empty when absent or damaged). */
async function readSelectIndex(dir: string): Promise<Map<string, SelectEntry>> {
  const doc = (await readDerived(dir, SELECT_FILE, SELECT_FORMAT)) as { entries?: unknown } | undefined;
  if (typeof doc !== 'object' || doc === null || !Array.isArray(doc.entries)) return new Map();
  return new Map((doc.entries as SelectEntry[]).map((e) => [e[0], e]));
}

/** Every ticket and its event ids, without bytes; undefined when the store cannot list them so. */
async function listIds(store: EventStore): Promise<ReadonlyMap<string, readonly string[]> | undefined> {
  if (store.eventIdsByTicket) return store.eventIdsByTicket();
  if (!store.allEventIds) return undefined;
  const tickets = await store.ticketIds();
  const out = new Map<string, string[]>(tickets.map((t) => [t, []]));
  for (const { ticket, id } of await store.allEventIds()) out.get(ticket)?.push(id);
  return out;
}

/**
 * The `ls` rows at `now` through the store's index, with `select` also what a selector reads;
 * undefined when the store keeps no derived data or cannot list ids without bytes (then the
 * caller loads every ticket).
 */
export async function indexedLsRows(store: EventStore, now: Instant, opts: { readonly select?: 'stages' | 'fields' } = {}): Promise<IndexedRows | undefined> {
  const dir = store.derivedDir;
  if (dir === undefined) return undefined;
  // the same order of failures as a listing without the index: the register, then the store
  const reg = await effectiveRegister(store);
  const register = parseRegister(reg.text);
  const registerDigest = reg.digest ?? 'none';
  let listed: ReadonlyMap<string, readonly string[]> | undefined;
  try {
    listed = await listIds(store);
  } catch (e) {
    // a damaged pack index: a listing without the index skips that ticket, so take that road
    if (isCodedError(e) && e.code !== 'store/io') return undefined;
    throw e;
  }
  if (listed === undefined) return undefined;
  const stored = await readIndex(dir, registerDigest);
  // a selector of stages alone is answered from ls.json: select.json is not even read
  const storedSelect = opts.select === 'fields' ? await readSelectIndex(dir) : undefined;

  // Each stored pin resolved again, once: it holds if it still resolves, without a warning, to
  // the same definition.
  const pinHolds: boolean[] = [];
  for (const [pinHash, pinName, defHash] of stored.pins) pinHolds.push(await pinResolvesTo(store, { hash: pinHash ?? undefined, name: pinName ?? undefined }, defHash));

  // Hits: same event set, a pin that holds, `now` inside the window. Both lists are sorted by ticket.
  const tickets = [...listed.keys()];
  const digests = new Map<string, string>();
  const hit = new Map<string, Entry>();
  let j = 0;
  for (const t of tickets) {
    const ids = listed.get(t)!;
    if (ids.length === 0) continue;
    const digest = eventSetDigest(ids);
    digests.set(t, digest);
    while (j < stored.entries.length && stored.entries[j]![0] < t) j++;
    const e = stored.entries[j];
    if (e === undefined || e[0] !== t || e[1] !== digest || pinHolds[e[2]] !== true) continue;
    if ((e[3] !== null && now.ms < e[3]) || (e[4] !== null && now.ms >= e[4])) continue;
    if (storedSelect !== undefined && storedSelect.get(t)?.[1] !== digest) continue;
    hit.set(t, e);
  }
  const misses = tickets.filter((t) => !hit.has(t));
  const set = misses.length > 0 ? await loadTicketSet(store, now, { tickets: misses, register }) : { tickets: [], skipped: [], warnings: [] };

  // Misses derived now become entries; pins are renumbered from what the new index names.
  const fresh = new Map<string, { row: LsRow; select?: { fields: SelectFields; eventIds: string[] }; kept?: { entry: Entry; pin: PinEntry } }>();
  const freshSelect = new Map<string, SelectEntry>();
  for (const t of set.tickets) {
    const row = lsRow(t);
    const pin = pinOf(t.events);
    const digest = digests.get(t.ticket);
    let select: { fields: SelectFields; eventIds: string[] } | undefined;
    if (opts.select !== undefined) select = { fields: selectFields(t, row.current), eventIds: t.events.map((e) => e.id) };
    if (select !== undefined && storedSelect !== undefined) {
      // the fields are a function of the events alone: kept whatever the pin
      if (digest !== undefined) freshSelect.set(t.ticket, [t.ticket, digest, selectFieldsText(select.fields)]);
    }
    // a definition found by name whose hash is not the pin warns: never kept
    if (digest === undefined || (pin.hash !== undefined && pin.hash !== t.def.hash)) {
      fresh.set(t.ticket, { row, ...(select !== undefined ? { select } : {}) });
      continue;
    }
    const w = derivationWindow(t.def, t.events, now.ms);
    const entry: Entry = [
      t.ticket,
      digest,
      -1,
      Number.isFinite(w.from) ? w.from : null,
      Number.isFinite(w.until) ? w.until : null,
      row.title,
      [...row.current],
      [...row.reached],
      row.settled,
      row.events,
      row.updated,
      [...row.missingParents],
    ];
    fresh.set(t.ticket, { row, ...(select !== undefined ? { select } : {}), kept: { entry, pin: [pin.hash ?? null, pin.name ?? null, t.def.hash, row.process] } });
  }

  const rows: LsRow[] = [];
  const select: { fields: SelectFields; eventIds: readonly string[] }[] = [];
  const selectEntries: SelectEntry[] = [];
  const pins: PinEntry[] = [];
  const pinAt = new Map<string, number>();
  const pinOfEntry = new Map<PinEntry, number>(); // hits share their stored pin's array
  const pinIndex = (p: PinEntry): number => {
    let i = pinOfEntry.get(p);
    if (i !== undefined) return i;
    const key = JSON.stringify(p);
    i = pinAt.get(key);
    if (i === undefined) {
      i = pins.push(p) - 1;
      pinAt.set(key, i);
    }
    pinOfEntry.set(p, i);
    return i;
  };
  const entries: Entry[] = [];
  for (const t of tickets) {
    const e = hit.get(t);
    if (e !== undefined) {
      const pin = stored.pins[e[2]]!;
      rows.push({ ticket: t, title: e[5], process: pin[3], current: e[6], reached: e[7], settled: e[8], events: e[9], updated: e[10], missingParents: e[11] });
      if (storedSelect !== undefined) {
        const s = storedSelect.get(t)!; // a hit has one: checked above
        select.push({ fields: selectFieldsFrom(s[2], e[6]), eventIds: listed.get(t)! });
        selectEntries.push(s);
      } else if (opts.select === 'stages') {
        select.push({ fields: stagesOnly(e[6]), eventIds: listed.get(t)! });
      }
      const i = pinIndex(pin);
      entries.push(i === e[2] ? e : withPin(e, i));
      continue;
    }
    const f = fresh.get(t);
    if (f === undefined) continue;
    rows.push(f.row);
    if (f.select !== undefined) select.push(f.select);
    const s = freshSelect.get(t);
    if (s !== undefined) selectEntries.push(s);
    if (f.kept) entries.push(withPin(f.kept.entry, pinIndex(f.kept.pin)));
  }
  if (fresh.size > 0 || stored.entries.length !== hit.size) await writeDerived(dir, FILE, FORMAT, { register: registerDigest, pins, entries } satisfies IndexDoc);
  if (storedSelect !== undefined && (freshSelect.size > 0 || storedSelect.size !== selectEntries.length)) {
    await writeDerived(dir, SELECT_FILE, SELECT_FORMAT, { entries: selectEntries });
  }
  return { rows, ...(opts.select !== undefined ? { select } : {}), skipped: set.skipped, warnings: set.warnings, hits: hit.size };
}

const NOTHING: ReadonlySet<string> = new Set();

/** The fields of a row for a selector that reads its stages alone (`Selector.readsOnlyStages`). */
const stagesOnly = (current: readonly string[]): SelectFields => ({
  current: new Set(current),
  facts: new Map(),
  actors: NOTHING,
  derivedFrom: NOTHING,
  haystack: '',
  disputed: false,
  conflicted: false,
});

const withPin = (e: Entry, pin: number): Entry => {
  const out = [...e] as Entry;
  out[2] = pin;
  return out;
};
