/**
 * The EventStore contract (tik-model.md §8.1, upstream ADR 0020). Every backend (file, SQLite,
 * PostgreSQL, memory) implements this one interface and passes the same contract suite.
 *
 * Rules every implementation keeps:
 * - Append-only: an event, once stored, is never changed or removed.
 * - Bytes, never a re-serialised parsed value: `eventBytes` returns exactly what `append` got.
 * - `append` is idempotent by id, and refuses bytes that do not hash to the id (nothing written).
 * - `events(ticket)` is unordered; the kernel orders by (at, id).
 * - Bad input (a malformed id, ticket, name) throws `TikError` before anything is written.
 * - Any index or cache is disposable (`derivedDir`).
 *
 * Beside the log, a store holds the files a derivation and `verify` read: artifact blobs, the
 * process archive (`processes/by-hash`), named definitions, `roles.edn` and `actors`.
 */
import type { AllowedSigner } from '../../core/sshsig.js';

/** One stored event: its content address and its exact bytes. */
export interface StoredEvent {
  readonly id: string;
  readonly bytes: Uint8Array;
}

/** Where an event lives, without its bytes. */
export interface EventRef {
  readonly ticket: string;
  readonly id: string;
}

/** Where a sidecar lives, without its bytes. */
export interface SidecarEntry {
  readonly ticket: string;
  readonly name: string;
}

/** One actors line added by `addActor`. */
export interface ActorEntry {
  readonly name: string;
  readonly fpr16: string;
  /** The line as written to `actors`. */
  readonly line: string;
}

export type StoreKind = 'file' | 'sqlite' | 'postgres' | 'memory';

export interface EventStore {
  readonly kind: StoreKind;
  /** Where the store lives, for messages (a directory, a database file or URL). */
  readonly location: string;

  // ── the log ────────────────────────────────────────────────────────────────────────────────
  /**
   * Stores `bytes` as event `id` of `ticket`. Returns true if it was new, false if an event with
   * that id was already there (idempotent). Throws `store/hash-mismatch` if the bytes do not
   * hash to `id`, `store/bad-id` or `store/bad-ticket` for malformed arguments.
   */
  append(ticket: string, id: string, bytes: Uint8Array): Promise<boolean>;
  /** All events of a ticket, in no particular order; empty for an unknown ticket. */
  events(ticket: string): Promise<readonly StoredEvent[]>;
  /** Every ticket that has a directory/rows in the store (lower-case uuids), sorted. */
  ticketIds(): Promise<readonly string[]>;
  /**
   * Stores events of one ticket as one batch, in the order given (parents before children; every
   * id checked as `append` does, before anything is written). Returns, per event, true if it was
   * new. Optional: a bulk writer (sync) calls `append` per event when it is absent. A crash leaves
   * a prefix of the batch (each event whole); once it returns, the batch is as durable as `append`
   * would have made it.
   */
  appendBatch?(ticket: string, events: readonly StoredEvent[]): Promise<readonly boolean[]>;
  /**
   * The stored events of `ticket` among `ids`, reading only those (absent ids are left out, in no
   * particular order). Optional: callers read `eventBytes` per id when it is absent.
   */
  eventsById?(ticket: string, ids: readonly string[]): Promise<readonly StoredEvent[]>;
  hasEvent(ticket: string, id: string): Promise<boolean>;
  /** The exact bytes appended, or undefined if the event is absent. */
  eventBytes(ticket: string, id: string): Promise<Uint8Array | undefined>;
  /**
   * Every event of the store as (ticket, id), in no particular order, WITHOUT reading any event's
   * bytes (a directory listing, an index, a key-only query). Sync builds its item set from this
   * and an id-keyed cache of `:event/at` (ids are content addresses, so the cache cannot go
   * stale), reading bytes only for ids it has not seen. Every backend implements it; a store
   * that wraps another may leave it out, and callers then read `events(ticket)` per ticket.
   */
  allEventIds?(): Promise<readonly EventRef[]>;
  /**
   * `allEventIds` grouped: every ticket of `ticketIds` (sorted, one with no events too) and its
   * event ids, from the same byte-free listing. Optional; the `ls` index uses it when present.
   */
  eventIdsByTicket?(): Promise<ReadonlyMap<string, readonly string[]>>;
  /**
   * One ticket's event ids from the same byte-free listing (empty for an unknown ticket).
   * Optional; a derived status is served when they are unchanged (callers fall back to `events`).
   */
  eventIds?(ticket: string): Promise<readonly string[]>;

  // ── sidecars: signatures and witnesses beside events (`<id>.sig.<fpr16>`, `<id>.witness.<fpr16>`)
  /** Stores a sidecar; returns false if one with that name and these bytes was already there. */
  putSidecar(ticket: string, name: string, bytes: Uint8Array): Promise<boolean>;
  /** Sidecar names of a ticket, sorted. */
  sidecarNames(ticket: string): Promise<readonly string[]>;
  readSidecar(ticket: string, name: string): Promise<Uint8Array | undefined>;
  /**
   * Every sidecar of the store as (ticket, name), in no particular order, without bytes. Optional
   * like `allEventIds` (callers fall back to `sidecarNames(ticket)` per ticket).
   */
  allSidecarNames?(): Promise<readonly SidecarEntry[]>;

  // ── blobs: artifact bytes, addressed by `sha256-<hex>` of the raw bytes ─────────────────────
  /** Stores a blob under the ticket and returns its hash (idempotent). */
  putBlob(ticket: string, bytes: Uint8Array): Promise<string>;
  readBlob(ticket: string, hash: string): Promise<Uint8Array | undefined>;

  // ── process definitions ─────────────────────────────────────────────────────────────────
  /**
   * Archives a CANONICAL definition text at `processes/by-hash/<hash>.edn` and returns the hash.
   * Refuses (`store/not-canonical`) text that is not the canonical emission of what it parses to.
   */
  archiveProcess(canonicalText: string): Promise<string>;
  /** The archived definition text, or undefined. The caller checks that it hashes to `hash`. */
  readProcessByHash(hash: string): Promise<string | undefined>;
  /** Hashes of every archived definition, sorted (names in `by-hash/` that look like ids). */
  archivedProcessHashes(): Promise<readonly string[]>;
  /** Sidecar names beside an archived definition (`<hash>.sig.<fpr16>`), sorted. */
  processSidecarNames(hash: string): Promise<readonly string[]>;
  readProcessSidecar(hash: string, name: string): Promise<Uint8Array | undefined>;
  putProcessSidecar(hash: string, name: string, bytes: Uint8Array): Promise<boolean>;
  /** The named (mutable, hand-written) definition `processes/<name>.edn`, or undefined. */
  readNamedProcess(name: string): Promise<string | undefined>;
  /**
   * Writes `processes/<name>.edn` (a hand-written definition: comments and layout kept, not
   * canonical). Refuses (`store/bad-definition`) text that does not read as one EDN map.
   */
  writeNamedProcess(name: string, text: string): Promise<void>;
  /** Names of the named definitions (file stems, excluding `*.tests.edn`), sorted. */
  listProcesses(): Promise<readonly string[]>;

  // ── root sidecars: witnesses `roots/<root>.witness.<fpr16>` and OpenTimestamps anchors
  // `roots/<root>.ots` (the root document itself is not kept) ──
  /** Names of root witnesses (`sha256-<root>.witness.<fpr16>`), sorted. */
  rootWitnessNames(): Promise<readonly string[]>;
  /** A root witness or anchor (`<root>.ots`), or undefined. */
  readRootWitness(name: string): Promise<Uint8Array | undefined>;
  /** Stores a root witness or anchor; false if the identical file was already there. */
  putRootWitness(name: string, bytes: Uint8Array): Promise<boolean>;

  // ── disposable derived data ──────────────────────────────────────────────────────────────────
  /**
   * A directory where readers may keep disposable derived data, such as the `ls` index (ADR 0013:
   * never authority; deleting it changes no answer). Export, sync, migrate and verify never read
   * it. Absent when the backend offers none (then every read derives from the log).
   */
  readonly derivedDir?: string;

  // ── trust and membership ──────────────────────────────────────────────────────────────────
  /** The text of `roles.edn`, or undefined if the store has none. */
  readRolesRegister(): Promise<string | undefined>;
  /** The raw text of `actors`, or undefined. */
  readActorsText(): Promise<string | undefined>;
  /** The parsed `actors` allowed-signers lines (empty if there is no file). */
  readActors(): Promise<readonly AllowedSigner[]>;
  /**
   * Appends `<name> namespaces="tik-*" ssh-ed25519 <b64> [comment]` to `actors` from a public key
   * line (a `.pub` file's contents). Idempotent: the same name and key are not added twice.
   */
  addActor(name: string, pubkeyLine: string): Promise<ActorEntry>;
}
