/**
 * Atomic file writes: write a temporary file in the target's directory, flush it, then rename it
 * over the target. A crash at any point leaves either no file or the whole file, never a partial
 * one (rename within one directory is atomic on POSIX file systems). Temporary names start with
 * `.tmp-`, which no store listing matches.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Test seam: called after the temporary file is complete and before the rename. */
export interface AtomicWriteHooks {
  readonly beforeRename?: (tempPath: string) => void | Promise<void>;
}

/** The temporary-name prefix; listings must ignore names that start with it. */
export const TEMP_PREFIX = '.tmp-';

/**
 * Writes `bytes` to `path` atomically, creating parent directories. On any failure the temporary
 * file is removed and the error rethrown; `path` is untouched.
 */
export async function writeFileAtomic(path: string, bytes: Uint8Array | string, hooks: AtomicWriteHooks = {}): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  // Randomness here names a scratch file only; it never reaches stored bytes.
  const temp = join(dir, `${TEMP_PREFIX}${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}`);
  try {
    const fh = await open(temp, 'wx', 0o644);
    try {
      await fh.writeFile(bytes);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await hooks.beforeRename?.(temp);
    await rename(temp, path);
  } catch (e) {
    await rm(temp, { force: true });
    throw e;
  }
}
