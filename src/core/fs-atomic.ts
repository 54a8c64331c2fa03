/**
 * Atomic file writes: write a temporary file in the target's directory, flush it, then move it
 * into place. A crash at any point leaves either no file or the whole file, never a partial one
 * (rename and link within one directory are atomic on POSIX file systems). Temporary names start
 * with `.tmp-`, which no store listing matches.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, rename, rm } from 'node:fs/promises';
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
    try {
      await link(temp, path);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'EEXIST') return false;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') throw e;
      await rename(temp, path);
    }
    if (durable) await syncDir(dirname(path));
    return true;
  } finally {
    await rm(temp, { force: true });
  }
}
