/**
 * The MV snapshot store (federation-fleet.md §1.10): a shared directory (a local path or a network
 * mount every instance sees) of immutable Parquet snapshots, one subdirectory per MV:
 *
 *   <root>/<mv dir>/<snapshot name>.parquet        complete, immutable, maybe not yet published
 *   <root>/<mv dir>/.staging-<snapshot name>.parquet   being written (never read)
 *   <root>/<mv dir>/.quarantine-<snapshot name>.parquet   found unreadable (never read; GC removes it)
 *
 * A snapshot is written completely under a staging name, flushed, then renamed to its fresh final
 * name; only the refresh catalog's fenced commit (which sets `snapshot_id`) publishes it. The store
 * never overwrites a file, so a reader holding a path reads one complete snapshot, whatever peers do.
 *
 * Garbage collection removes a file only when no catalog row references it, it is older than a grace
 * period, AND this store has seen it unreferenced for that long. The last rule is what protects
 * readers: a snapshot made long ago becomes unreferenced the moment it is superseded, and a reader
 * that resolved it just before must still finish its query (Cube's "relation does not exist" after
 * a peer's cleanup, cube-js/cube#8546). A fresh store has seen nothing yet, so it removes nothing
 * for a whole grace period.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ShoalError } from '../errors.js';

/** The default store directory, relative to the config file's directory. */
export const DEFAULT_STORE_DIR = 'shoal-mv';

/** Default GC grace: far longer than any query that may still read a superseded snapshot. */
export const DEFAULT_GC_GRACE_MS = 10 * 60_000;

const SNAPSHOT_ID = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_-]+$/;
const STAGING_PREFIX = '.staging-';
const QUARANTINE_PREFIX = '.quarantine-';

/**
 * The store directory named by `materialize_store_url`: `file:///abs/dir`, an absolute path, or a
 * path relative to `baseDir`; absent → `<baseDir>/shoal-mv`. Database URLs are not a snapshot store.
 */
export function storeDirectory(url: string | undefined, baseDir: string): string {
  if (url === undefined || url === '') return resolve(baseDir, DEFAULT_STORE_DIR);
  if (url.startsWith('file:')) {
    try {
      return fileURLToPath(url);
    } catch (e) {
      throw new ShoalError('MV_STORE_URL', `materialize_store_url "${url}" is not a valid file URL`, {
        where: 'stateful.materialize_store_url',
        hint: 'write file:///absolute/dir, or a plain directory path',
        cause: e,
      });
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    throw new ShoalError('MV_STORE_URL', `materialize_store_url "${url}" is not a directory: MV snapshots are Parquet files in a shared directory`, {
      where: 'stateful.materialize_store_url',
      hint: 'give a directory every instance can reach (a local path or a network mount), e.g. file:///srv/shoal-mv',
    });
  }
  return isAbsolute(url) ? url : resolve(baseDir, url);
}

/** The directory name of an MV in the store: its id made path-safe, never `.` or `..`. */
export function mvDirectoryName(mvId: string): string {
  const safe = mvId.replace(/[^A-Za-z0-9_.-]/g, '_');
  return /^\.*$/.test(safe) ? `_${safe}` : safe;
}

export interface SnapshotFile {
  readonly snapshotId: string;
  readonly path: string;
  readonly bytes: number;
  readonly modifiedMs: number;
}

export interface GcOptions {
  /** Snapshot ids some catalog row publishes (never removed). */
  readonly referenced: ReadonlySet<string>;
  /** Files younger than this are kept even when unreferenced (default DEFAULT_GC_GRACE_MS). */
  readonly graceMs?: number;
}

export interface GcReport {
  readonly removed: readonly string[];
  readonly kept: number;
}

export interface SnapshotStoreOptions {
  /** Wall clock for GC ages (epoch ms); default Date.now. */
  readonly now?: () => number;
}

export class SnapshotStore {
  private readonly now: () => number;
  /** When this store first saw each file unreferenced (the supersede time, or later). */
  private readonly unreferencedSince = new Map<string, number>();

  private constructor(
    readonly root: string,
    options: SnapshotStoreOptions,
    private readonly unavailable?: ShoalError,
  ) {
    this.now = options.now ?? (() => Date.now());
  }

  /**
   * A store that refuses every write with `error` (a misconfigured `materialize_store_url`): the
   * instance still starts, MVs are served live, and each refresh fails saying why.
   */
  static refusing(error: ShoalError): SnapshotStore {
    return new SnapshotStore('/nonexistent-shoal-mv-store', {}, error);
  }

  /**
   * The store at `root`. Nothing is created until the first snapshot is written, so an instance
   * without MVs leaves no directory behind.
   */
  static async open(root: string, options: SnapshotStoreOptions = {}): Promise<SnapshotStore> {
    return new SnapshotStore(root, options);
  }

  /** A fresh, never-used snapshot id for an MV: `<mv dir>/<time>-<random>`. */
  newSnapshotId(mvId: string): string {
    return `${mvDirectoryName(mvId)}/${this.now().toString(36)}-${randomBytes(8).toString('hex')}`;
  }

  /** The Parquet file of a snapshot id (the id is checked: it can never escape the store). */
  pathOf(snapshotId: string): string {
    if (!SNAPSHOT_ID.test(snapshotId) || snapshotId.split('/').some((p) => /^\.*$/.test(p))) {
      throw new ShoalError('MV_SNAPSHOT_ID', `"${snapshotId}" is not a snapshot id of this store`, {
        hint: 'snapshot ids are written by shoal refreshes (<mv>/<name>); the catalog row may have been edited by hand',
      });
    }
    const [dir, name] = snapshotId.split('/') as [string, string];
    return join(this.root, dir, `${name}.parquet`);
  }

  /**
   * Write a snapshot completely under a staging name, flush it, then rename it to its final name.
   * `write` gets the staging path and must create the file there. On any failure the staging file
   * is removed and nothing appears under the final name. Returns the final path.
   */
  async write(snapshotId: string, write: (stagingPath: string) => Promise<void>): Promise<string> {
    if (this.unavailable) throw this.unavailable;
    const finalPath = this.pathOf(snapshotId);
    const [dir, name] = snapshotId.split('/') as [string, string];
    try {
      await mkdir(join(this.root, dir), { recursive: true });
    } catch (e) {
      throw new ShoalError('MV_STORE_UNAVAILABLE', `the MV snapshot store ${this.root} is not writable`, {
        where: 'stateful.materialize_store_url',
        hint: 'point materialize_store_url at a writable directory shared by every instance',
        cause: e,
      });
    }
    const staging = join(this.root, dir, `${STAGING_PREFIX}${name}.parquet`);
    try {
      await write(staging);
      const fh = await open(staging, 'r');
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(staging, finalPath);
    } catch (e) {
      await rm(staging, { force: true }).catch(() => undefined);
      throw e;
    }
    return finalPath;
  }

  /** Whether the snapshot's file exists (complete: only renamed files carry the final name). */
  async exists(snapshotId: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(snapshotId))).isFile();
    } catch {
      return false;
    }
  }

  /**
   * Move an unreadable snapshot aside (`.quarantine-<name>.parquet`, kept for inspection until GC):
   * no instance resolves it any more (it no longer `exists`), so every reader is served live, and
   * the refresh loop sees the published snapshot missing and rebuilds it. Idempotent across peers.
   */
  async quarantine(snapshotId: string): Promise<void> {
    const path = this.pathOf(snapshotId);
    const [dir, name] = snapshotId.split('/') as [string, string];
    try {
      await rename(path, join(this.root, dir, `${QUARANTINE_PREFIX}${name}.parquet`));
    } catch (e) {
      if ((e as { code?: string }).code !== 'ENOENT') throw e; // a peer moved it first
    }
  }

  /** Remove one unpublished snapshot (after a refused commit or a lost lease). */
  async discard(snapshotId: string): Promise<void> {
    await rm(this.pathOf(snapshotId), { force: true });
  }

  /** Every file in the store, staging files included (their id carries the staging prefix). */
  async list(): Promise<SnapshotFile[]> {
    const out: SnapshotFile[] = [];
    if (this.unavailable) return out;
    let dirs: string[];
    try {
      dirs = await readdir(this.root);
    } catch {
      return out;
    }
    for (const dir of dirs.sort()) {
      let names: string[];
      try {
        names = await readdir(join(this.root, dir));
      } catch {
        continue; // a file at the top level, or removed meanwhile
      }
      for (const file of names.sort()) {
        if (!file.endsWith('.parquet')) continue;
        const path = join(this.root, dir, file);
        try {
          const s = await stat(path);
          out.push({ snapshotId: `${dir}/${file.slice(0, -'.parquet'.length)}`, path, bytes: s.size, modifiedMs: s.mtimeMs });
        } catch {
          // removed by a peer's GC between readdir and stat
        }
      }
    }
    return out;
  }

  /**
   * Remove unreferenced snapshots (and abandoned staging files) that are older than the grace
   * period and have been seen unreferenced by this store for as long. A referenced snapshot is never
   * removed, however old; a recently superseded one is kept for in-flight readers.
   */
  async collectGarbage(options: GcOptions): Promise<GcReport> {
    const grace = options.graceMs ?? DEFAULT_GC_GRACE_MS;
    const now = this.now();
    const removed: string[] = [];
    let kept = 0;
    const present = new Set<string>();
    for (const f of await this.list()) {
      present.add(f.snapshotId);
      if (options.referenced.has(f.snapshotId)) {
        this.unreferencedSince.delete(f.snapshotId);
        kept++;
        continue;
      }
      const since = this.unreferencedSince.get(f.snapshotId) ?? now;
      this.unreferencedSince.set(f.snapshotId, since);
      if (now - since < grace || now - f.modifiedMs < grace) {
        kept++;
        continue;
      }
      await rm(f.path, { force: true });
      this.unreferencedSince.delete(f.snapshotId);
      removed.push(f.snapshotId);
    }
    for (const id of [...this.unreferencedSince.keys()]) if (!present.has(id)) this.unreferencedSince.delete(id);
    return { removed, kept };
  }
}
