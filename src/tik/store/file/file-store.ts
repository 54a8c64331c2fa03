/**
 * The file store: upstream's exact on-disk layout (tik-model.md §1.9), so a tree written by
 * upstream tik and one written by us are interchangeable byte for byte (and merge under git as a
 * union of added files).
 *
 * Writes go through `writeFileAtomic` (temp file + rename), so a crash never leaves a partial
 * event, sidecar or blob; every argument is checked before the first write.
 */
import { readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createDirWithFiles, createFileAtomic, moveFilesIntoPlace, removeStaleTemps, writeFileAtomic, type AtomicWriteHooks, type BatchFile } from '../../../core/fs-atomic.js';
import { CodedError } from '../../../core/errors.js';
import type { AllowedSigner } from '../../../core/sshsig.js';
import { TikError } from '../../errors.js';
import type { ActorEntry, EventRef, EventStore, SidecarEntry, StoredEvent } from '../store.js';
import { addActorToText, parseActors } from '../actors-file.js';
import { canonicalTextProblem } from '../canonical-text.js';
import { checkDefinitionText } from '../definition-text.js';
import {
  EVENT_FILE,
  SIDECAR_NAME,
  PROCESS_NAME,
  TICKET_UUID,
  checkBytesMatch,
  checkContentId,
  checkProcessName,
  checkRootSidecarName,
  checkSidecarName,
  checkTicket,
  sha256Id,
} from '../store-names.js';
import { parsePackIndex, slicePack } from './event-pack.js';
import {
  DERIVED_DIR,
  PACK_FILE,
  PACK_INDEX_FILE,
  actorsPath,
  rootsDir,
  blobPath,
  byHashDir,
  byHashPath,
  eventPath,
  eventsDir,
  namedProcessPath,
  processesDir,
  rolesPath,
  sidecarPath,
  ticketDir,
  ticketsDir,
} from './file-layout.js';

export interface FileStoreOptions {
  /** Fault injection for tests: runs inside every atomic write, before the rename. */
  readonly writeHooks?: AtomicWriteHooks;
  /**
   * Default true: every write is flushed to disk before it returns. False is for bulk copies
   * (import, migrate, benchmarks): still atomic against a process crash, not against power loss.
   */
  readonly durable?: boolean;
}

/** Reads a file, or undefined if it does not exist. */
async function readIfExists(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (e) {
    if (isMissing(e)) return undefined;
    throw ioError(e, path);
  }
}

/**
 * `readIfExists` of a small text (a definition, the register): one synchronous read costs less
 * than the thread-pool round trips of a promise-based one, and a server reads these on every status.
 */
function readSmallIfExists(path: string): string | undefined {
  try {
    // a missing file (roles.edn, mostly) is answered without building an exception
    if (statSync(path, { throwIfNoEntry: false }) === undefined) return undefined;
    return readFileSync(path, 'utf8');
  } catch (e) {
    if (isMissing(e)) return undefined;
    throw ioError(e, path);
  }
}

/** `listDir`, synchronously, for one small directory read on every request (`eventIds`). */
function listDirSync(path: string): string[] {
  try {
    // a missing directory (the roles ticket, mostly) is answered without building an exception
    if (statSync(path, { throwIfNoEntry: false }) === undefined) return [];
    return readdirSync(path);
  } catch (e) {
    if (isMissing(e)) return [];
    throw ioError(e, path);
  }
}

async function listDir(path: string): Promise<string[]> {
  try {
    return await readdir(path);
  } catch (e) {
    if (isMissing(e)) return [];
    throw ioError(e, path);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (e) {
    if (isMissing(e)) return false;
    throw ioError(e, path);
  }
}

function isMissing(e: unknown): boolean {
  const code = (e as { code?: string } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function ioError(e: unknown, path: string): TikError {
  const code = (e as { code?: string } | null)?.code ?? (e instanceof Error ? e.message : String(e));
  return new TikError('store/io', `cannot access ${path} (${code})`, { where: path, cause: e, hint: 'check the path and its permissions' });
}

/**
 * Reads many small files. Synchronous reads in slices: for thousands of small event files this
 * is several times faster than promise-based reads (one thread-pool round trip each for open,
 * stat, read and close), and yielding between slices keeps a server's event loop responsive.
 */
async function readAll(paths: readonly string[]): Promise<Buffer[]> {
  const out = await readAllPresent(paths);
  return out.map((b, i) => b ?? throwMissing(paths[i]!));
}

function throwMissing(path: string): never {
  throw ioError(Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' }), path);
}

/** `readAll`, where a missing file reads as undefined. */
async function readAllPresent(paths: readonly string[], slice = 256): Promise<(Buffer | undefined)[]> {
  const out: (Buffer | undefined)[] = [];
  for (let i = 0; i < paths.length; i++) {
    if (i > 0 && i % slice === 0) await new Promise<void>((r) => setImmediate(r));
    try {
      out.push(readFileSync(paths[i]!));
    } catch (e) {
      if (!isMissing(e)) throw ioError(e, paths[i]!);
      out.push(undefined);
    }
  }
  return out;
}

/**
 * Lists many directories (missing ones read empty), synchronously in slices for the same reason
 * as `readAll`: a listing of every ticket's events directory is thousands of small calls.
 */
async function listAll(paths: readonly string[], slice = 256): Promise<string[][]> {
  const out: string[][] = [];
  for (let i = 0; i < paths.length; i++) {
    if (i > 0 && i % slice === 0) await new Promise<void>((r) => setImmediate(r));
    try {
      out.push(readdirSync(paths[i]!));
    } catch (e) {
      if (!isMissing(e)) throw ioError(e, paths[i]!);
      out.push([]);
    }
  }
  return out;
}

/** A batch of at most this many events checks each with a lookup instead of listing the ticket. */
const LOOK_UP_ONE_BY_ONE = 8;

export class FileStore implements EventStore {
  readonly kind = 'file' as const;
  /** The store directory: the root, or `<root>/.tik` for a hidden store. */
  readonly base: string;
  private readonly hooks: AtomicWriteHooks;

  constructor(base: string, options: FileStoreOptions = {}) {
    this.base = base;
    this.hooks = { ...options.writeHooks, durable: options.durable ?? options.writeHooks?.durable ?? true };
  }

  get location(): string {
    return this.base;
  }

  /** `<base>/.tik-index`: outside `tickets/`, `processes/` and the side files, so nothing copies it. */
  get derivedDir(): string {
    return join(this.base, DERIVED_DIR);
  }

  private async write(path: string, bytes: Uint8Array | string): Promise<void> {
    try {
      await writeFileAtomic(path, bytes, this.hooks);
    } catch (e) {
      if (e instanceof CodedError) throw e;
      throw ioError(e, path);
    }
  }

  /** Creates a file that must never be overwritten (events, blobs, archives); false if present. */
  private async create(path: string, bytes: Uint8Array | string): Promise<boolean> {
    try {
      return await createFileAtomic(path, bytes, this.hooks);
    } catch (e) {
      if (e instanceof CodedError) throw e;
      throw ioError(e, path);
    }
  }

  // ── the log ──────────────────────────────────────────────────────────────────────────────

  /** Packed events of a ticket (id → bytes), empty without a pack index. */
  private async packed(ticket: string): Promise<Map<string, Uint8Array>> {
    const dir = eventsDir(this.base, ticket);
    const idx = await readIfExists(join(dir, PACK_INDEX_FILE));
    if (idx === undefined) return new Map();
    const where = `tickets/${ticket}/events/${PACK_INDEX_FILE}`;
    const index = parsePackIndex(idx.toString('utf8'), where);
    const pack = await readIfExists(join(dir, PACK_FILE));
    if (pack === undefined) {
      throw new TikError('store/bad-pack', `${where} exists but ${PACK_FILE} does not`, {
        where,
        hint: 'restore events.pack from a replica, or remove the index if the loose events are all present',
      });
    }
    return slicePack(pack, index, where);
  }

  async append(ticket: string, id: string, bytes: Uint8Array): Promise<boolean> {
    checkTicket(ticket);
    checkContentId(id);
    checkBytesMatch(id, bytes, `ticket ${ticket}`);
    if (await this.hasEvent(ticket, id)) return false;
    // A ticket directory appears only with its first event (built aside, renamed into place): a
    // crash never leaves an empty ticket that listings and verify would trip over.
    if (!(await exists(ticketDir(this.base, ticket)))) {
      try {
        if (await createDirWithFiles(ticketDir(this.base, ticket), [{ path: join('events', `${id}.edn`), bytes }], this.hooks)) return true;
      } catch (e) {
        if (e instanceof CodedError) throw e;
        throw ioError(e, ticketDir(this.base, ticket));
      }
    }
    return this.create(eventPath(this.base, ticket, id), bytes);
  }

  /**
   * One batch of a ticket's events (parents first): a ticket this store does not hold yet is built
   * aside whole and renamed into place (it appears with every event of the batch, or not at all);
   * otherwise one listing finds what is new, which is written and flushed in a temporary
   * directory, moved into place in order, and the directory flushed once. A crash leaves a prefix.
   */
  async appendBatch(ticket: string, events: readonly StoredEvent[]): Promise<readonly boolean[]> {
    checkTicket(ticket);
    for (const e of events) {
      checkContentId(e.id);
      checkBytesMatch(e.id, e.bytes, `ticket ${ticket}`);
    }
    const dir = ticketDir(this.base, ticket);
    const unique = [...new Map(events.map((e) => [e.id, e] as const)).values()];
    const files = (list: readonly StoredEvent[], prefix: string): BatchFile[] => list.map((e) => ({ path: join(prefix, `${e.id}.edn`), bytes: e.bytes }));
    const created = new Set<string>();
    try {
      if (unique.length > 0 && !(await exists(dir)) && (await createDirWithFiles(dir, files(unique, 'events'), this.hooks))) {
        for (const e of unique) created.add(e.id);
      } else {
        const eventsPath = eventsDir(this.base, ticket);
        const present = await this.presentOf(ticket, unique);
        const fresh = unique.filter((e) => !present.has(e.id));
        // event names are content addresses: a same-named file that raced in has these very bytes
        await moveFilesIntoPlace(eventsPath, files(fresh, ''), this.hooks);
        for (const e of fresh) created.add(e.id);
      }
    } catch (e) {
      if (e instanceof CodedError) throw e;
      throw ioError(e, dir);
    }
    // a repeated id counts once, as its first occurrence
    return events.map((e) => created.delete(e.id));
  }

  /**
   * Which of `events` the ticket holds: a few are looked up one by one (the cost of a large
   * ticket's listing must not be paid per event), more by one listing, which also clears what a
   * killed writer left.
   */
  private async presentOf(ticket: string, events: readonly StoredEvent[]): Promise<Set<string>> {
    const dir = eventsDir(this.base, ticket);
    if (events.length <= LOOK_UP_ONE_BY_ONE) {
      const present = new Set<string>();
      for (const e of events) if (await exists(eventPath(this.base, ticket, e.id))) present.add(e.id);
      if (present.size < events.length && (await exists(join(dir, PACK_INDEX_FILE)))) for (const id of await this.packedIds(ticket)) present.add(id);
      return present;
    }
    const names = await listDir(dir);
    if (names.some((n) => n.startsWith('.tmp-'))) await removeStaleTemps(dir, names);
    const present = new Set(names.flatMap((n) => EVENT_FILE.exec(n)?.[1] ?? []));
    if (names.includes(PACK_INDEX_FILE)) for (const id of await this.packedIds(ticket)) present.add(id);
    return present;
  }

  /** Reads only the asked-for events: their loose files, and the pack only when one is missing. */
  async eventsById(ticket: string, ids: readonly string[]): Promise<readonly StoredEvent[]> {
    checkTicket(ticket);
    ids.forEach((id) => checkContentId(id));
    const out: StoredEvent[] = [];
    const missing: string[] = [];
    const bytes = await readAllPresent(ids.map((id) => eventPath(this.base, ticket, id)));
    ids.forEach((id, i) => (bytes[i] !== undefined ? out.push(Object.freeze({ id, bytes: bytes[i] })) : missing.push(id)));
    if (missing.length > 0) {
      const packed = await this.packed(ticket);
      for (const id of missing) {
        const b = packed.get(id);
        if (b !== undefined) out.push(Object.freeze({ id, bytes: b }));
      }
    }
    return out;
  }

  async events(ticket: string): Promise<readonly StoredEvent[]> {
    checkTicket(ticket);
    const dir = eventsDir(this.base, ticket);
    const names = await listDir(dir);
    const ids = names.flatMap((n) => {
      const m = EVENT_FILE.exec(n);
      return m ? [m[1]!] : [];
    });
    const bytes = await readAll(ids.map((id) => eventPath(this.base, ticket, id)));
    const out: StoredEvent[] = ids.map((id, i) => Object.freeze({ id, bytes: bytes[i]! }));
    // temporaries of a writer killed before its rename: invisible, and cleared here
    if (names.some((n) => n.startsWith('.tmp-'))) await removeStaleTemps(dir, names);
    if (names.includes(PACK_INDEX_FILE)) {
      // Loose and packed events merge on read; a loose copy wins.
      const loose = new Set(ids);
      for (const [id, b] of await this.packed(ticket)) if (!loose.has(id)) out.push(Object.freeze({ id, bytes: b }));
    }
    return out;
  }

  /** Every event of every ticket from the directory listings (and pack indexes), no event bytes. */
  async allEventIds(): Promise<readonly EventRef[]> {
    const out: EventRef[] = [];
    for (const [ticket, ids] of await this.eventIdsByTicket()) for (const id of ids) out.push({ ticket, id });
    return out;
  }

  /** One ticket's event ids from its directory listing (and pack index), no event bytes. */
  async eventIds(ticket: string): Promise<readonly string[]> {
    checkTicket(ticket);
    return this.idsIn(ticket, listDirSync(eventsDir(this.base, ticket)));
  }

  /** The event ids a listing of a ticket's events directory names, packed ones included. */
  private async idsIn(ticket: string, names: readonly string[]): Promise<string[]> {
    const loose: string[] = [];
    for (const n of names) {
      const m = EVENT_FILE.exec(n);
      if (m) loose.push(m[1]!);
    }
    if (names.includes(PACK_INDEX_FILE)) {
      const seen = new Set(loose);
      for (const id of await this.packedIds(ticket)) if (!seen.has(id)) loose.push(id);
    }
    return loose;
  }

  /** Every ticket (sorted, with no events too) and its event ids, from the same listings. */
  async eventIdsByTicket(): Promise<ReadonlyMap<string, readonly string[]>> {
    const tickets = await this.ticketIds();
    const listings = await listAll(tickets.map((t) => eventsDir(this.base, t)));
    const out = new Map<string, readonly string[]>();
    for (let i = 0; i < tickets.length; i++) out.set(tickets[i]!, await this.idsIn(tickets[i]!, listings[i]!));
    return out;
  }

  /** Every sidecar of every ticket, from the directory listings. */
  async allSidecarNames(): Promise<readonly SidecarEntry[]> {
    const tickets = await this.ticketIds();
    const listings = await listAll(tickets.map((t) => eventsDir(this.base, t)));
    // most names are events (`….edn`): skip them before the sidecar pattern
    return tickets.flatMap((ticket, i) => listings[i]!.filter((n) => !n.endsWith('.edn') && SIDECAR_NAME.test(n)).map((name) => ({ ticket, name })));
  }

  /** Ids in a ticket's pack index (the pack itself is not read). */
  private async packedIds(ticket: string): Promise<readonly string[]> {
    const idx = await readIfExists(join(eventsDir(this.base, ticket), PACK_INDEX_FILE));
    if (idx === undefined) return [];
    return parsePackIndex(idx.toString('utf8'), `tickets/${ticket}/events/${PACK_INDEX_FILE}`).entries.map((e) => e.id);
  }

  async ticketIds(): Promise<readonly string[]> {
    const dir = ticketsDir(this.base);
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (e) {
      if (isMissing(e)) return [];
      throw ioError(e, dir);
    }
    const out: string[] = [];
    if (entries.some((e) => e.name.startsWith('.tmp-'))) await removeStaleTemps(dir, entries.map((e) => e.name));
    for (const e of entries) {
      if (!TICKET_UUID.test(e.name)) continue;
      // A symlinked ticket directory counts if it points at a directory.
      if (e.isDirectory() || (e.isSymbolicLink() && (await stat(join(dir, e.name)).then((s) => s.isDirectory(), () => false)))) out.push(e.name);
    }
    return out.sort();
  }

  async hasEvent(ticket: string, id: string): Promise<boolean> {
    checkTicket(ticket);
    checkContentId(id);
    if (await exists(eventPath(this.base, ticket, id))) return true;
    return (await this.packed(ticket)).has(id);
  }

  async eventBytes(ticket: string, id: string): Promise<Uint8Array | undefined> {
    checkTicket(ticket);
    checkContentId(id);
    const b = await readIfExists(eventPath(this.base, ticket, id));
    if (b !== undefined) return new Uint8Array(b);
    return (await this.packed(ticket)).get(id);
  }

  // ── sidecars ─────────────────────────────────────────────────────────────────────────────

  async putSidecar(ticket: string, name: string, bytes: Uint8Array): Promise<boolean> {
    checkTicket(ticket);
    checkSidecarName(name);
    const path = sidecarPath(this.base, ticket, name);
    const old = await readIfExists(path);
    if (old !== undefined && old.equals(bytes)) return false;
    await this.write(path, bytes);
    return true;
  }

  async sidecarNames(ticket: string): Promise<readonly string[]> {
    checkTicket(ticket);
    return (await listDir(eventsDir(this.base, ticket))).filter((n) => SIDECAR_NAME.test(n)).sort();
  }

  async readSidecar(ticket: string, name: string): Promise<Uint8Array | undefined> {
    checkTicket(ticket);
    checkSidecarName(name);
    const b = await readIfExists(sidecarPath(this.base, ticket, name));
    return b === undefined ? undefined : new Uint8Array(b);
  }

  // ── blobs ────────────────────────────────────────────────────────────────────────────────

  async putBlob(ticket: string, bytes: Uint8Array): Promise<string> {
    checkTicket(ticket);
    const hash = sha256Id(bytes);
    const path = blobPath(this.base, ticket, hash);
    if (!(await exists(path))) await this.create(path, bytes);
    return hash;
  }

  async readBlob(ticket: string, hash: string): Promise<Uint8Array | undefined> {
    checkTicket(ticket);
    checkContentId(hash, 'blob hash');
    const b = await readIfExists(blobPath(this.base, ticket, hash));
    return b === undefined ? undefined : new Uint8Array(b);
  }

  // ── process definitions ──────────────────────────────────────────────────────────────────

  async archiveProcess(canonicalText: string): Promise<string> {
    const problem = canonicalTextProblem(canonicalText);
    if (problem !== undefined) {
      throw new TikError('store/not-canonical', `a definition to archive must be canonical: ${problem}`, {
        where: 'processes/by-hash',
        hint: 'archive emit(readEdn(text)), the canonical bytes the hash is taken over',
      });
    }
    const hash = sha256Id(Buffer.from(canonicalText, 'utf8'));
    const path = byHashPath(this.base, hash);
    if (!(await exists(path))) await this.create(path, canonicalText);
    return hash;
  }

  async readProcessByHash(hash: string): Promise<string | undefined> {
    checkContentId(hash, 'process hash');
    return readSmallIfExists(byHashPath(this.base, hash));
  }

  async archivedProcessHashes(): Promise<readonly string[]> {
    return (await listDir(byHashDir(this.base))).flatMap((n) => {
      const m = EVENT_FILE.exec(n);
      return m ? [m[1]!] : [];
    }).sort();
  }

  async processSidecarNames(hash: string): Promise<readonly string[]> {
    checkContentId(hash, 'process hash');
    return (await listDir(byHashDir(this.base))).filter((n) => SIDECAR_NAME.exec(n)?.[1] === hash).sort();
  }

  async readProcessSidecar(hash: string, name: string): Promise<Uint8Array | undefined> {
    checkContentId(hash, 'process hash');
    checkSidecarName(name);
    const b = await readIfExists(join(byHashDir(this.base), name));
    return b === undefined ? undefined : new Uint8Array(b);
  }

  async putProcessSidecar(hash: string, name: string, bytes: Uint8Array): Promise<boolean> {
    checkContentId(hash, 'process hash');
    checkSidecarName(name);
    if (SIDECAR_NAME.exec(name)?.[1] !== hash) {
      throw new TikError('store/bad-sidecar-name', `sidecar ${name} does not belong to ${hash}`, { where: 'processes/by-hash' });
    }
    const path = join(byHashDir(this.base), name);
    const old = await readIfExists(path);
    if (old !== undefined && old.equals(bytes)) return false;
    await this.write(path, bytes);
    return true;
  }

  async readNamedProcess(name: string): Promise<string | undefined> {
    checkProcessName(name);
    return readSmallIfExists(namedProcessPath(this.base, name));
  }

  async writeNamedProcess(name: string, text: string): Promise<void> {
    checkProcessName(name);
    checkDefinitionText(name, text);
    await this.write(namedProcessPath(this.base, name), text);
  }

  async listProcesses(): Promise<readonly string[]> {
    return (await listDir(processesDir(this.base)))
      .filter((n) => n.endsWith('.edn') && !n.endsWith('.tests.edn'))
      .map((n) => n.slice(0, -'.edn'.length))
      .filter((n) => PROCESS_NAME.test(n))
      .sort();
  }

  // ── root witnesses ─────────────────────────────────────────────────────────────────────

  async rootWitnessNames(): Promise<readonly string[]> {
    return (await listDir(rootsDir(this.base))).filter((n) => SIDECAR_NAME.exec(n)?.[2] === 'witness').sort();
  }

  async readRootWitness(name: string): Promise<Uint8Array | undefined> {
    checkRootSidecarName(name);
    const b = await readIfExists(join(rootsDir(this.base), name));
    return b === undefined ? undefined : new Uint8Array(b);
  }

  async putRootWitness(name: string, bytes: Uint8Array): Promise<boolean> {
    checkRootSidecarName(name);
    const path = join(rootsDir(this.base), name);
    const old = await readIfExists(path);
    if (old !== undefined && old.equals(bytes)) return false;
    await this.write(path, bytes);
    return true;
  }

  // ── trust and membership ─────────────────────────────────────────────────────────────────

  async readRolesRegister(): Promise<string | undefined> {
    return readSmallIfExists(rolesPath(this.base));
  }

  async readActorsText(): Promise<string | undefined> {
    return (await readIfExists(actorsPath(this.base)))?.toString('utf8');
  }

  async readActors(): Promise<readonly AllowedSigner[]> {
    return parseActors(await this.readActorsText(), actorsPath(this.base));
  }

  async addActor(name: string, pubkeyLine: string): Promise<ActorEntry> {
    const { entry, text } = addActorToText(await this.readActorsText(), name, pubkeyLine, actorsPath(this.base));
    if (text !== undefined) await this.write(actorsPath(this.base), text);
    return entry;
  }
}
