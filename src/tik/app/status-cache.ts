/**
 * The status cache (issue 18; ADR 0013: derived data, never authority): per ticket, the body of
 * `tik status --json` from its last derivation, served instead of parsing and deriving the ticket
 * again while its key still holds:
 * - the ticket's event-set digest: an event that arrives by any route (a write, sync, a file
 *   copied in) changes it;
 * - its pin and the hash of the definition the pin resolves to now, without a warning;
 * - the digest of the roles register in effect;
 * - the derivation window (kernel `derivationWindow`): outside it (time passed, or `--at`/`TIK_NOW`
 *   elsewhere) the ticket is derived again. Only `at` in the body is the instant asked for.
 * Two layers: this process's memory (a `tik serve` replica answers most reads from it) and one
 * authenticated file per ticket in the store's derived directory (`status/<2 hex>/<ticket>.json`,
 * derived-file.ts), so a deleted, truncated, corrupt, forged or copied-in file is a miss.
 *
 * How a read learns the event set is the caller's choice (`check`):
 * - `bytes` (the CLI): every event file is read and hashed against its name, as without the cache,
 *   so a hit changes no answer at all, an event edited in place included; only parsing and
 *   deriving are saved;
 * - `listing` (a server): the ids of a byte-free listing (`EventStore.eventIds`), so a hit reads
 *   no event. An event file edited in place under its own name (outside the store's append-only
 *   contract) is then not noticed while the entry holds; `tik verify` reports it.
 */
import { join } from 'node:path';
import { isCodedError } from '../../core/errors.js';
import type { Instant } from '../edn/value.js';
import { derivationWindow } from '../kernel/index.js';
import { effectiveRegister } from '../roles/effective-register.js';
import { readDerived, writeDerived } from '../store/derived-file.js';
import type { EventStore, StoredEvent } from '../store/store.js';
import { eventSetDigest, pinResolvesTo } from './derivation-key.js';
import { instantText, type Json } from './json-value.js';
import { statusView } from './lenses.js';
import { pinOf } from './pin.js';
import { bytesMatchNames, incompleteLog, loadTicketAt, locateTicket, type WarningSink } from './ticket-loader.js';

/** Bump when the status body or the key changes meaning: a file of another format is a miss. */
const FORMAT = 'tik-status/1';
/** Entries kept in memory; the oldest used goes first. */
const MEMORY_ENTRIES = 10_000;

/** One ticket's kept status and the key it holds under. */
interface Entry {
  readonly ticket: string;
  readonly digest: string;
  /** The pin `[hash, name]` (nulls for absent) and the hash of the definition it resolved to. */
  readonly pin: readonly [string | null, string | null];
  readonly def: string;
  readonly register: string;
  /** The derivation window `[from, until)` in epoch ms; null: unbounded. */
  readonly from: number | null;
  readonly until: number | null;
  /** The `status --json` body; `at` is replaced by the instant asked for. */
  readonly json: Record<string, Json>;
}

export type StatusCheck = 'bytes' | 'listing';

/** A status read: the full ticket id and the body of `tik status --json`. */
export interface StatusJson {
  readonly ticket: string;
  readonly json: Record<string, Json>;
}

const isEntry = (v: unknown, ticket: string): v is Entry => {
  const e = v as Partial<Entry> | undefined;
  // the HMAC vouches for the shape below (only this code writes this format); the ticket is
  // checked because an authentic file may have been copied to another ticket's name
  return typeof e === 'object' && e !== null && e.ticket === ticket && typeof e.digest === 'string' && Array.isArray(e.pin) && typeof e.json === 'object' && e.json !== null;
};

export class StatusCache {
  private readonly memory = new Map<string, Entry>();
  /** Reads answered from a kept entry (tests and benchmarks look). */
  hits = 0;

  constructor(
    private readonly store: EventStore,
    private readonly check: StatusCheck,
  ) {}

  /** `tik status --json` of the ticket `prefix` names, at `now`. */
  async status(sink: WarningSink, prefix: string, now: Instant): Promise<StatusJson> {
    const store = this.store;
    // the ticket fails as without the cache; anything wrong after it is a miss, derived below
    const { ticket, found } = await locateTicket(store, prefix, (t) => this.eventSet(t));
    const digest = eventSetDigest(found.ids);
    // a register that cannot be read fails below, after the events, as without the cache
    const reg = await effectiveRegister(store).catch((e: unknown) => {
      if (isCodedError(e)) return undefined;
      throw e;
    });
    const register = reg === undefined ? undefined : (reg.digest ?? 'none');
    const hit = found.intact && register !== undefined ? await this.lookup(ticket, digest, register, now) : undefined;
    if (hit !== undefined) {
      const missing = (hit.json.missingParents as Json[]).length;
      if (missing > 0) sink.warn(incompleteLog(ticket, missing));
      return { ticket, json: { ...hit.json, at: instantText(now) } };
    }

    // a miss: derive from the events as a read without the cache does, then keep the answer
    const stored = found.stored ?? (await store.events(ticket));
    const open = await loadTicketAt(sink, store, ticket, stored, reg);
    const { json } = statusView(open, now);
    const pin = pinOf(open.events);
    const def = open.def!; // statusView requires it
    // a definition found by name whose hash is not the pin warns: never kept
    if (register !== undefined && (pin.hash === undefined || pin.hash === def.hash)) {
      const w = derivationWindow(def, open.events, now.ms);
      await this.keep({
        ticket,
        digest: eventSetDigest(stored.map((e) => e.id)),
        pin: [pin.hash ?? null, pin.name ?? null],
        def: def.hash,
        register,
        from: Number.isFinite(w.from) ? w.from : null,
        until: Number.isFinite(w.until) ? w.until : null,
        json,
      });
    }
    return { ticket, json };
  }

  /**
   * The ticket's event ids, and with `bytes` its events and whether each hashes to its name (if
   * one does not, the read derives and fails as without the cache).
   */
  private async eventSet(ticket: string): Promise<{ length: number; ids: readonly string[]; stored?: readonly StoredEvent[]; intact: boolean }> {
    const store = this.store;
    if (this.check === 'listing' && store.eventIds) {
      const ids = await store.eventIds(ticket);
      return { length: ids.length, ids, intact: true };
    }
    const stored = await store.events(ticket);
    return { length: stored.length, ids: stored.map((e) => e.id), stored, intact: bytesMatchNames(stored) };
  }

  /** The entry that holds for this event set, register and instant, from memory or the file. */
  private async lookup(ticket: string, digest: string, register: string, now: Instant): Promise<Entry | undefined> {
    const holds = (e: Entry | undefined): e is Entry =>
      e !== undefined && e.digest === digest && e.register === register && (e.from === null || now.ms >= e.from) && (e.until === null || now.ms < e.until);
    let entry = this.memory.get(ticket);
    if (!holds(entry)) {
      const dir = this.dirOf(ticket);
      const read = dir === undefined ? undefined : await readDerived(dir, `${ticket}.json`, FORMAT);
      entry = isEntry(read, ticket) ? read : undefined;
      if (!holds(entry)) return undefined;
    }
    if (!(await pinResolvesTo(this.store, { hash: entry.pin[0] ?? undefined, name: entry.pin[1] ?? undefined }, entry.def))) return undefined;
    this.remember(entry);
    this.hits++;
    return entry;
  }

  private async keep(entry: Entry): Promise<void> {
    this.remember(entry);
    const dir = this.dirOf(entry.ticket);
    if (dir !== undefined) await writeDerived(dir, `${entry.ticket}.json`, FORMAT, entry);
  }

  private remember(entry: Entry): void {
    this.memory.delete(entry.ticket);
    if (this.memory.size >= MEMORY_ENTRIES) this.memory.delete(this.memory.keys().next().value!);
    this.memory.set(entry.ticket, entry);
  }

  /** `<derived>/status/<first two hex digits>`: no directory holds every ticket's file. */
  private dirOf(ticket: string): string | undefined {
    const base = this.store.derivedDir;
    return base === undefined ? undefined : join(base, 'status', ticket.slice(0, 2));
  }
}
