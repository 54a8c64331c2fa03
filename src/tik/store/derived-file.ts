/**
 * A file of disposable derived data (ADR 0013: never authority) in a store's derived directory
 * (`EventStore.derivedDir`): one JSON document behind a header line that names its format and
 * the SHA-256 of the rest, so a truncated, corrupt or foreign file reads as absent, never as data.
 * Written atomically (temp file + rename): concurrent writers each leave a whole file, the last
 * rename wins. Nothing here throws: a derived file that cannot be read or written is a miss.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256Hex } from '../../core/hash.js';
import { removeStaleTemps, writeFileAtomic } from '../../core/fs-atomic.js';

/** The document in `dir/name` if its header names `format` and its checksum holds; else undefined. */
export async function readDerived(dir: string, name: string, format: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(join(dir, name), 'utf8');
  } catch {
    return undefined;
  }
  const nl = text.indexOf('\n');
  if (nl < 0) return undefined;
  const body = text.slice(nl + 1);
  if (text.slice(0, nl) !== `${format} sha256-${sha256Hex(body)}`) return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Writes `value` as `dir/name` (creating `dir` with a `.gitignore` that ignores it all, so a
 * store kept in git never commits it). Returns false when it could not (a read-only store).
 */
export async function writeDerived(dir: string, name: string, format: string, value: unknown): Promise<boolean> {
  const body = JSON.stringify(value);
  try {
    let names: string[] = [];
    try {
      names = await readdir(dir);
    } catch {
      // created by the write below
    }
    await writeFileAtomic(join(dir, name), `${format} sha256-${sha256Hex(body)}\n${body}`, { durable: false });
    if (!names.includes('.gitignore')) await writeFile(join(dir, '.gitignore'), '*\n');
    // temporaries of a writer killed before its rename
    await removeStaleTemps(dir, names);
    return true;
  } catch {
    return false;
  }
}
