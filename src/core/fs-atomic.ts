/**
 * Atomic file writes: write a temporary file in the target's directory, flush it, then move it
 * into place. A crash at any point leaves either no file or the whole file, never a partial one
 * (rename and link within one directory are atomic on POSIX file systems). Temporary names start
 * with `.tmp-`, which no store listing matches.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsync, linkSync, openSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { basename, dirname, join } from 'node:path';

export interface AtomicWriteHooks {
  /** Test seam: called after the temporary file is complete and before it is moved into place. */
  readonly beforeRename?: (tempPath: string) => void | Promise<void>;
  /**
   * Default true: flush the file before it is moved into place and the directory after, so a
   * completed write survives power loss. False skips both (a crash of the process still never
   * leaves a partial file; a power loss may lose recent writes): for bulk copies and tests.
   */
  readonly durable?: boolean;
}

/** The temporary-name prefix; listings must ignore names that start with it. */
export const TEMP_PREFIX = '.tmp-';

async function writeTemp(path: string, bytes: Uint8Array | string, durable: boolean): Promise<string> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  // Randomness here names a scratch file only; it never reaches stored bytes.
  const temp = join(dir, `${TEMP_PREFIX}${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}`);
  try {
    const fh = await open(temp, 'wx', 0o644);
    try {
      await fh.writeFile(bytes);
      if (durable) await fh.sync();
    } finally {
      await fh.close();
    }
  } catch (e) {
    await rm(temp, { force: true });
    throw e;
  }
  return temp;
}

/** Flushes a directory entry change to disk; best effort (not every platform allows it). */
async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // Durability of the rename is an optimisation; atomicity does not depend on it.
  }
}

/**
 * Writes `bytes` to `path` atomically, replacing any existing file, creating parent
 * directories. On failure the temporary file is removed and the error rethrown; `path` is
 * untouched.
 */
export async function writeFileAtomic(path: string, bytes: Uint8Array | string, hooks: AtomicWriteHooks = {}): Promise<void> {
  const durable = hooks.durable ?? true;
  const temp = await writeTemp(path, bytes, durable);
  try {
    await hooks.beforeRename?.(temp);
    await rename(temp, path);
  } catch (e) {
    await rm(temp, { force: true });
    throw e;
  }
  if (durable) await syncDir(dirname(path));
}

/**
 * Creates `path` atomically with `bytes` only if it does not exist yet (never overwrites).
 * Returns false if a file was already there, so of many concurrent writers exactly one sees
 * true. Uses a hard link for the exclusive step, falling back to rename on file systems
 * without hard links.
 */
export async function createFileAtomic(path: string, bytes: Uint8Array | string, hooks: AtomicWriteHooks = {}): Promise<boolean> {
  const durable = hooks.durable ?? true;
  const temp = await writeTemp(path, bytes, durable);
  try {
    await hooks.beforeRename?.(temp);
    if (!linkOrRename(temp, path)) return false;
    if (durable) await syncDir(dirname(path));
    return true;
  } finally {
    await rm(temp, { force: true });
  }
}

/** One file of a batch: its path relative to the batch's directory, and its bytes. */
export interface BatchFile {
  readonly path: string;
  readonly bytes: Uint8Array | string;
}

/** Files written before their flushes are awaited (bounds the descriptors a batch holds open). */
const FLUSH_CHUNK = 64;
/** Synchronous writes between yields to the event loop (as the file store's bulk reads do). */
const WRITE_SLICE = 256;
const fsyncFd = promisify(fsync);
const yieldLoop = (): Promise<void> => new Promise((r) => setImmediate(r));

/**
 * Creates each of `paths[i]` with `bytes[i]` (exclusive: a file already there is an error), and
 * when `durable`, flushes them. Synchronous writes in slices: thousands of small files cost one
 * system call each instead of several thread-pool round trips; the flushes run concurrently, so a
 * journaling file system commits them together. A failure removes every file this call made.
 */
async function writeNewFiles(paths: readonly string[], files: readonly BatchFile[], durable: boolean): Promise<void> {
  const made: string[] = [];
  try {
    for (let at = 0; at < paths.length; at += FLUSH_CHUNK) {
      const fds: number[] = [];
      try {
        for (let i = at; i < Math.min(at + FLUSH_CHUNK, paths.length); i++) {
          if (i > 0 && i % WRITE_SLICE === 0) await yieldLoop();
          const fd = openSync(paths[i]!, 'wx', 0o644);
          made.push(paths[i]!);
          fds.push(fd);
          writeFileSync(fd, files[i]!.bytes);
        }
        if (durable) await Promise.all(fds.map((fd) => fsyncFd(fd)));
      } finally {
        for (const fd of fds) closeSync(fd);
      }
    }
  } catch (e) {
    made.forEach(unlinkQuiet);
    throw e;
  }
}

/**
 * Creates directory `dir` holding exactly `files`, atomically: the tree is built under a temporary
 * name beside `dir`, flushed (files, then directories) when durable, and renamed into place, so
 * `dir` never appears empty or partial (a crash leaves only a `.tmp-` directory, which
 * `removeStaleTemps` clears). Returns false, writing nothing, if `dir` already exists.
 */
export async function createDirWithFiles(dir: string, files: readonly BatchFile[], hooks: AtomicWriteHooks = {}): Promise<boolean> {
  const durable = hooks.durable ?? true;
  const parent = dirname(dir);
  await mkdir(parent, { recursive: true });
  const temp = join(parent, `${TEMP_PREFIX}${basename(dir)}.${process.pid}.${randomBytes(6).toString('hex')}`);
  try {
    const dirs = [...new Set(files.map((f) => dirname(join(temp, f.path))))];
    for (const d of dirs) await mkdir(d, { recursive: true });
    const paths = files.map((f) => join(temp, f.path));
    await writeNewFiles(paths, files, durable);
    if (durable) for (const d of [...dirs, temp]) await syncDir(d);
    for (const p of paths) await hooks.beforeRename?.(p);
    try {
      await rename(temp, dir);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'EEXIST' || code === 'ENOTEMPTY' || code === 'EISDIR') return false;
      throw e;
    }
    if (durable) await syncDir(parent);
    return true;
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/**
 * Puts `files` (plain names) into `dir`, in the order given: all are written into a temporary
 * directory inside `dir` and flushed first, then each is renamed into place in order and `dir` is
 * flushed once. So a crash of the process leaves a prefix of the batch, each file whole (and the
 * temporary directory, which `removeStaleTemps` clears); once this returns, every file is as
 * durable as `createFileAtomic` makes one (flushed file, flushed directory). A file already there
 * under the same name is replaced: for callers whose names are content addresses (event files),
 * whose bytes are fixed by their name. One directory operation per file besides its creation.
 */
export async function moveFilesIntoPlace(dir: string, files: readonly BatchFile[], hooks: AtomicWriteHooks = {}): Promise<void> {
  if (files.length === 0) return;
  const durable = hooks.durable ?? true;
  const temp = join(dir, `${TEMP_PREFIX}batch.${process.pid}.${randomBytes(6).toString('hex')}`);
  await mkdir(temp, { recursive: true });
  try {
    const paths = files.map((f) => join(temp, basename(f.path)));
    await writeNewFiles(paths, files, durable);
    for (let i = 0; i < files.length; i++) {
      if (i > 0 && i % WRITE_SLICE === 0) await yieldLoop();
      await hooks.beforeRename?.(paths[i]!);
      renameSync(paths[i]!, join(dir, basename(files[i]!.path)));
    }
    if (durable) await syncDir(dir);
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

function unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone (never written, or moved by rename)
  }
}

/** Moves `temp` to `path` only if `path` does not exist: false if it does. */
function linkOrRename(temp: string, path: string): boolean {
  try {
    linkSync(temp, path);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') throw e;
    if (existsSync(path)) return false;
    renameSync(temp, path);
  }
  return true;
}

/** True if a process with this id runs on this machine. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === 'EPERM';
  }
}

/**
 * Whether `name` is a temporary left by a process that no longer runs (`.tmp-<name>.<pid>.<hex>`):
 * a writer killed between writing and renaming. A live writer's temporaries are never touched.
 */
export function isStaleTemp(name: string): boolean {
  if (!name.startsWith(TEMP_PREFIX)) return false;
  const m = /\.(\d+)\.[0-9a-f]{12}$/.exec(name);
  return m !== null && Number(m[1]) !== process.pid && !alive(Number(m[1]));
}

/** Removes the stale temporaries (files or directories) among `names` in `dir`; best effort. */
export async function removeStaleTemps(dir: string, names: readonly string[]): Promise<number> {
  let n = 0;
  for (const name of names) {
    if (!isStaleTemp(name)) continue;
    await rm(join(dir, name), { recursive: true, force: true }).then(() => n++, () => undefined);
  }
  return n;
}
