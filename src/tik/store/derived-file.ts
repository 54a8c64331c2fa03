/**
 * A file of disposable derived data (ADR 0013: never authority) in a store's derived directory
 * (`EventStore.derivedDir`): one JSON document behind a header line that names its format and
 * an HMAC-SHA-256 of the rest under this user's key (derived-key.ts), so a truncated, corrupt or
 * foreign file — one copied in with a store, shipped in a repository, or forged by anyone without
 * the key — reads as absent, never as data.
 * Written atomically (temp file + rename): concurrent writers each leave a whole file, the last
 * rename wins. Nothing here throws: a derived file that cannot be read or written is a miss.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { removeStaleTemps, writeFileAtomic } from '../../core/fs-atomic.js';
import { derivedKey } from './derived-key.js';

const header = (format: string, key: Uint8Array, body: string): string => `${format} hmac-sha256-${createHmac('sha256', key).update(body).digest('hex')}`;

/** The document in `dir/name` if its header names `format` and its HMAC under `key` (default: this user's) holds; else undefined. */
export async function readDerived(dir: string, name: string, format: string, key?: Uint8Array): Promise<unknown> {
  const k = key ?? (await derivedKey());
  if (k === undefined) return undefined;
  let text: string;
  try {
    text = await readFile(join(dir, name), 'utf8');
  } catch {
    return undefined;
  }
  const nl = text.indexOf('\n');
  if (nl < 0) return undefined;
  const body = text.slice(nl + 1);
  if (text.slice(0, nl) !== header(format, k, body)) return undefined;
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
export async function writeDerived(dir: string, name: string, format: string, value: unknown, key?: Uint8Array): Promise<boolean> {
  const k = key ?? (await derivedKey());
  if (k === undefined) return false;
  const body = JSON.stringify(value);
  try {
    let names: string[] = [];
    try {
      names = await readdir(dir);
    } catch {
      // created by the write below
    }
    await writeFileAtomic(join(dir, name), `${header(format, k, body)}\n${body}`, { durable: false });
    if (!names.includes('.gitignore')) await writeFile(join(dir, '.gitignore'), '*\n');
    // temporaries of a writer killed before its rename
    await removeStaleTemps(dir, names);
    return true;
  } catch {
    return false;
  }
}
