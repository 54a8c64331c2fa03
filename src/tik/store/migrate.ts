/**
 * Copying a whole store into another and moving a store between backends
 * (`tik store migrate --to sqlite|file|postgres`, tik-model.md §8.1).
 *
 * `copyStore` copies the log (events with their exact bytes, sidecars), blobs and every side file
 * (process definitions and archive, root witnesses, `actors`, `roles.edn`, `oidc.edn`,
 * `effects.edn`, `pipelines.edn`, `jwks/`), through the EventStore contract for the log and raw
 * bytes for the side files. `migrateStore` copies, checks that both stores hold the same (ticket,
 * id) set with bytes that hash to their ids, and only then removes the source; on any failure the
 * source is untouched and whatever the migration created is removed again.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createFileAtomic, writeFileAtomic } from '../../core/fs-atomic.js';
import { TikError } from '../errors.js';
import { detectLayout } from './file/discover.js';
import { byHashDir, ticketsDir } from './file/file-layout.js';
import { FileStore } from './file/file-store.js';
import type { FileBag } from './memory/keyed-files.js';
import { closeStore, openStore } from './open-store.js';
import { PostgresStore, isPostgresUrl } from './postgres/postgres-store.js';
import { JOURNAL_FILE, clearJournal, recoverMigration, writeJournal, type MigrationJournal } from './migration-journal.js';
import { SQLITE_BLOBS_DIR, SqliteStore } from './sqlite/sqlite-store.js';
import type { EventStore } from './store.js';
import { CONTENT_ID, SIDECAR_NAME, sha256Id } from './store-names.js';
import { admitEventBytes, replacesStored } from './admission/index.js';
import { MIGRATE_TARGETS, type MigrateTarget } from './migrate-targets.js';

/** Side files copied verbatim: top-level files and directories of the store (one level each). */
export const SIDE_FILES: readonly string[] = Object.freeze(['actors', 'roles.edn', 'oidc.edn', 'effects.edn', 'pipelines.edn']);
export const SIDE_DIRS: readonly string[] = Object.freeze(['processes', 'processes/by-hash', 'roots', 'jwks']);

export interface CopyCounts {
  tickets: number;
  events: number;
  /** Events the target did not hold before. */
  newEvents: number;
  sidecars: number;
  blobs: number;
  sideFiles: number;
}

export interface CopyOptions {
  /** `all` (migrate, export) replaces side files; `missing` (import) only adds absent ones. Default `all`. */
  readonly sideFiles?: 'all' | 'missing';
  /** Called after each ticket with the running counts (for progress on stderr). */
  readonly onTicket?: (counts: Readonly<CopyCounts>, ticket: string) => void;
}

function isMissing(e: unknown): boolean {
  const code = (e as { code?: string } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** The side files of a store on disk, as a bag of relative paths. */
export function diskBag(base: string): FileBag {
  return {
    get: async (p) => {
      try {
        return new Uint8Array(await readFile(join(base, p)));
      } catch (e) {
        if (isMissing(e) || (e as { code?: string }).code === 'EISDIR') return undefined;
        throw e;
      }
    },
    put: (p, b) => writeFileAtomic(join(base, p), b, { durable: false }),
    create: (p, b) => createFileAtomic(join(base, p), b, { durable: false }),
    list: async (dir) => {
      try {
        return (await readdir(join(base, dir), { withFileTypes: true }))
          .filter((d) => d.isFile() && !d.name.startsWith('.tmp-'))
          .map((d) => d.name)
          .sort();
      } catch (e) {
        if (isMissing(e)) return [];
        throw e;
      }
    },
  };
}

/** Where a store keeps its side files: a directory for file and SQLite stores, else its own bag. */
export function sideFilesOf(store: EventStore): { bag: FileBag; base?: string } {
  if (store instanceof FileStore || store instanceof SqliteStore) return { bag: diskBag(store.base), base: store.base };
  const own = (store as { sideFiles?: () => FileBag }).sideFiles;
  if (typeof own === 'function') return { bag: own.call(store) };
  throw new TikError('store/unsupported', `the ${store.kind} store at ${store.location} cannot list its side files`, { where: store.location });
}

/** Blob hashes of a ticket, whatever the backend. */
export async function blobHashesOf(store: EventStore, ticket: string): Promise<readonly string[]> {
  const own = (store as { blobHashes?: (t: string) => Promise<readonly string[]> }).blobHashes;
  if (typeof own === 'function') return own.call(store, ticket);
  if (store instanceof FileStore) return (await diskBag(store.base).list(join('tickets', ticket, 'blobs'))).filter((n) => CONTENT_ID.test(n));
  return [];
}

/** Copies everything in `source` into `target` (a union: nothing in the target is removed). */
export async function copyStore(source: EventStore, target: EventStore, options: CopyOptions = {}): Promise<CopyCounts> {
  const counts: CopyCounts = { tickets: 0, events: 0, newEvents: 0, sidecars: 0, blobs: 0, sideFiles: 0 };
  for (const t of await source.ticketIds()) {
    const bytesOf = new Map<string, Uint8Array>();
    for (const e of await source.events(t)) {
      // each event passes the per-record admission check (canonical, UTF-8, bounded, hash-true)
      admitEventBytes(t, e.id, e.bytes, `${source.location} tickets/${t}/events/${e.id}.edn`);
      bytesOf.set(e.id, e.bytes);
      counts.events++;
      if (await target.append(t, e.id, e.bytes)) counts.newEvents++;
    }
    for (const name of await source.sidecarNames(t)) {
      const b = await source.readSidecar(t, name);
      if (b === undefined) continue;
      // a union: a valid signature the target holds is never replaced by other bytes
      const old = await target.readSidecar(t, name);
      const ev = bytesOf.get(SIDECAR_NAME.exec(name)?.[1] ?? '');
      if (old === undefined || (ev !== undefined && (await replacesStored(name, b, old, ev)))) {
        await target.putSidecar(t, name, b);
        counts.sidecars++;
      }
    }
    for (const hash of await blobHashesOf(source, t)) {
      const b = await source.readBlob(t, hash);
      if (b === undefined) continue;
      if (sha256Id(b) !== hash) {
        throw new TikError('store/hash-mismatch', `blob ${hash} of ticket ${t} does not hash to its name`, {
          where: `${source.location} tickets/${t}/blobs/${hash}`,
          hint: 'restore the blob from a replica, or remove it, then copy again',
        });
      }
      await target.putBlob(t, b);
      counts.blobs++;
    }
    counts.tickets++;
    options.onTicket?.(counts, t);
  }
  const from = sideFilesOf(source);
  const to = sideFilesOf(target);
  if (from.base === undefined || from.base !== to.base) {
    const paths = [...SIDE_FILES];
    for (const dir of SIDE_DIRS) for (const n of await from.bag.list(dir)) paths.push(`${dir}/${n}`);
    for (const p of paths) {
      const b = await from.bag.get(p);
      if (b === undefined) continue;
      if (options.sideFiles === 'missing') {
        if (await to.bag.create(p, b)) counts.sideFiles++;
      } else {
        const old = await to.bag.get(p);
        if (old === undefined || !Buffer.from(old).equals(Buffer.from(b))) {
          await to.bag.put(p, b);
          counts.sideFiles++;
        }
      }
    }
  }
  return counts;
}

/** Every (ticket, id) of a store as sorted `ticket/id` keys; checks that each event's bytes hash to its id. */
export async function eventKeys(store: EventStore): Promise<string[]> {
  const out: string[] = [];
  for (const t of await store.ticketIds()) {
    for (const e of await store.events(t)) {
      if (sha256Id(e.bytes) !== e.id) {
        throw new TikError('store/hash-mismatch', `event ${e.id} of ticket ${t} in ${store.location} does not hash to its id`, {
          where: `${store.location} tickets/${t}`,
          hint: 'run tik verify; restore the event from a replica',
        });
      }
      out.push(`${t}/${e.id}`);
    }
  }
  return out.sort();
}

/** Removes a store's log (and its own blobs); side files shared with the target stay. */
export async function removeStore(store: EventStore, keepSideFiles: boolean): Promise<void> {
  if (store instanceof FileStore) {
    await rm(ticketsDir(store.base), { recursive: true, force: true });
    // derived from the log just removed
    await rm(store.derivedDir, { recursive: true, force: true });
    if (!keepSideFiles) await removeSideFiles(store.base);
  } else if (store instanceof SqliteStore) {
    await store.close();
    for (const f of ['tik.db', 'tik.db-wal', 'tik.db-shm']) await rm(join(store.base, f), { force: true });
    await rm(join(store.base, SQLITE_BLOBS_DIR), { recursive: true, force: true });
    if (!keepSideFiles) await removeSideFiles(store.base);
  } else if (store instanceof PostgresStore) {
    await store.drop();
  } else {
    throw new TikError('store/unsupported', `cannot remove a ${store.kind} store`, { where: store.location });
  }
}

async function removeSideFiles(base: string): Promise<void> {
  for (const f of SIDE_FILES) await rm(join(base, f), { force: true });
  for (const d of ['processes', 'roots', 'jwks']) await rm(join(base, d), { recursive: true, force: true });
}

/** Flushes every file system's dirty pages (`sync`), so that files written without fsync are durable. */
function flushFileSystems(): void {
  const r = spawnSync('sync', [], { stdio: 'ignore' });
  if (r.error !== undefined || r.status !== 0) {
    throw new TikError('store/io', 'cannot flush the copied files to disk (`sync` failed); the source was not removed', {
      where: 'sync',
      hint: 'run `sync` yourself and migrate again (the copy is complete), or check the disk',
    });
  }
}

export interface MigrateResult {
  readonly counts: CopyCounts;
  readonly from: string;
  readonly to: string;
}

/**
 * Moves `source` into `target`, which must hold no tickets yet: copy, check the two (ticket, id)
 * sets are equal, remove the source. On any failure nothing of the source is removed, and
 * `undoTarget` (which removes what the migration created) runs. A target that already holds
 * tickets is refused before anything is written (and `undoTarget` is not called).
 */
export async function migrateStore(
  source: EventStore,
  target: EventStore,
  options: CopyOptions & {
    readonly undoTarget: () => Promise<void>;
    /** Journal hook: called once the target is known empty, before copying, and before the source is removed. */
    readonly onPhase?: (phase: 'copying' | 'removing-source') => Promise<void>;
  },
): Promise<MigrateResult> {
  const from = source.location;
  const to = target.location;
  if ((await target.ticketIds()).length > 0) {
    // checked before anything is copied: undoing must never remove tickets that were there before
    throw new TikError('store/exists', `the target ${to} already holds tickets`, {
      where: to,
      hint: 'migrate into an empty store; to merge two stores use tik export and tik import',
    });
  }
  let counts: CopyCounts;
  await options.onPhase?.('copying');
  try {
    counts = await copyStore(source, target, options);
    const [a, b] = [await eventKeys(source), await eventKeys(target)];
    if (a.length !== b.length || a.some((k, i) => k !== b[i])) {
      throw new TikError('store/migrate-mismatch', `after copying, ${from} holds ${a.length} events and ${to} holds ${b.length}; the id sets differ`, {
        where: to,
        hint: 'nothing was removed; run tik verify on both stores',
      });
    }
    // the copy's files were written without a flush each (one fsync per file is ~20x slower);
    // flush them all to disk before the only other copy goes
    flushFileSystems();
  } catch (e) {
    await options.undoTarget().catch(() => undefined);
    throw e;
  }
  const shared = sideFilesOf(source).base !== undefined && sideFilesOf(source).base === sideFilesOf(target).base;
  await options.onPhase?.('removing-source');
  await removeStore(source, shared);
  return { counts, from, to };
}


export { MIGRATE_TARGETS, type MigrateTarget } from './migrate-targets.js';

export interface MigrateRequest extends CopyOptions {
  /** The source: a store root directory or a PostgreSQL URL. */
  readonly from: string;
  readonly to: MigrateTarget;
  /** The PostgreSQL URL for `--to postgres`. */
  readonly url?: string;
  /**
   * The directory for `--to sqlite|file`. Default: the source's own directory (a file store
   * becomes a SQLite store in place and back); required when the source is PostgreSQL.
   */
  readonly dir?: string;
}

/**
 * `tik store migrate`: opens the source, creates the target, moves the store (see `migrateStore`).
 * In place (same directory), processes/, roots/, actors and roles.edn stay where they are.
 */
export async function migrate(req: MigrateRequest): Promise<MigrateResult> {
  if (!MIGRATE_TARGETS.includes(req.to)) {
    throw new TikError('cli/usage', `--to ${JSON.stringify(req.to)} is not one of ${MIGRATE_TARGETS.join(', ')}`, {
      where: '--to',
      hint: 'tik store migrate --to sqlite | --to file | --to postgres --url postgresql://…',
    });
  }
  // a migration killed earlier is finished or undone first (its journal says which)
  if (!isPostgresUrl(req.from)) await recoverMigration(req.from);
  if (req.dir !== undefined) await recoverMigration(req.dir);
  const source = await openStore(req.from, { durable: true });
  try {
    if (source.kind === req.to) {
      throw new TikError('cli/usage', `${source.location} is already a ${req.to} store`, { where: '--to', hint: 'choose another --to' });
    }
    const diskBase = source instanceof FileStore || source instanceof SqliteStore ? source.base : undefined;
    let target: EventStore;
    let undoTarget: () => Promise<void>;
    const journalDir = diskBase ?? req.dir;
    const journal = (phase: 'copying' | 'removing-source'): MigrationJournal => ({
      phase,
      source: { kind: source.kind as 'file' | 'sqlite' | 'postgres', location: diskBase ?? req.from },
      target: { kind: req.to, location: req.to === 'postgres' ? req.url! : (req.dir ?? diskBase)! },
      keepSideFiles: req.dir === undefined && req.to !== 'postgres' && diskBase !== undefined,
    });
    if (journalDir === undefined) {
      throw new TikError('cli/usage', `--to ${req.to} from ${source.location} needs --dir DIR`, { where: '--dir', hint: 'name the directory the new store goes to' });
    }
    if (req.to === 'postgres') {
      if (req.url === undefined) {
        throw new TikError('cli/usage', '--to postgres needs --url postgresql://…', { where: '--url', hint: 'e.g. --url postgresql://tik@db/tik?schema=team_a' });
      }
      const pg = await PostgresStore.open(req.url);
      target = pg;
      undoTarget = async () => {
        await pg.drop();
        await pg.close();
      };
    } else {
      const base = req.dir ?? diskBase;
      if (base === undefined) {
        throw new TikError('cli/usage', `--to ${req.to} from ${source.location} needs --dir DIR`, { where: '--dir', hint: 'name the directory the new store goes to' });
      }
      if (req.dir !== undefined && detectLayout(req.dir).kind !== 'none') {
        throw new TikError('store/exists', `${req.dir} already holds a store`, { where: req.dir, hint: 'migrate into an empty directory' });
      }
      // the disk target is new: journal it before its first file exists, so a kill at any point
      // is rolled back (a PostgreSQL target is journalled once it is known empty)
      await writeJournal(journalDir, journal('copying'));
      if (req.to === 'sqlite') {
        const sq = await SqliteStore.open(base, { durable: false });
        await sq.ensureLayout();
        target = sq;
        undoTarget = async () => {
          await sq.close();
          for (const f of ['tik.db', 'tik.db-wal', 'tik.db-shm']) await rm(join(base, f), { force: true });
          await rm(join(base, SQLITE_BLOBS_DIR), { recursive: true, force: true });
        };
      } else {
        await mkdir(ticketsDir(base), { recursive: true });
        await mkdir(byHashDir(base), { recursive: true });
        target = new FileStore(base, { durable: false });
        undoTarget = () => rm(ticketsDir(base), { recursive: true, force: true });
      }
    }
    try {
      const result = await migrateStore(source, target, { ...req, undoTarget, onPhase: (p) => writeJournal(journalDir, journal(p)) });
      await clearJournal(journalDir);
      return result;
    } catch (e) {
      // undone already (undoTarget) when the copy failed; nothing is ambiguous any more
      await closeStore(target).catch(() => undefined);
      if ((await readJournalPhase(journalDir)) === 'copying') await clearJournal(journalDir);
      throw e;
    } finally {
      await closeStore(target).catch(() => undefined);
    }
  } finally {
    await closeStore(source).catch(() => undefined);
  }
}

/** The phase of the journal in `dir`, if there is one. */
async function readJournalPhase(dir: string): Promise<string | undefined> {
  try {
    return (JSON.parse(await readFile(join(dir, JOURNAL_FILE), 'utf8')) as { phase?: string }).phase;
  } catch {
    return undefined;
  }
}
