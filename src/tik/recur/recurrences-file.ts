import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { TikError } from '../errors.js';
import type { EventStore } from '../store/store.js';
import { parseRecurrences, type Recurrence } from './recurrence.js';

/** Where a store keeps `recurrences.edn`: its root (file store), beside `tik.db` (SQLite), else the working directory. */
export function defaultRecurrencesFile(store: EventStore, cwd: string): string {
  if (store.kind === 'file') return resolve(store.location, 'recurrences.edn');
  if (store.kind === 'sqlite') return resolve(dirname(store.location), 'recurrences.edn');
  return resolve(cwd, 'recurrences.edn');
}

/**
 * Reads the recurrences of `file`. A missing file is no recurrences when `required` is false (the
 * default location), and a `recur/bad-config` error when the file was named explicitly.
 */
export async function readRecurrencesFile(file: string, required: boolean, defaultActor: string): Promise<Recurrence[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if (!required && (e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new TikError('recur/bad-config', `cannot read ${file}: ${(e as Error).message}`, { where: file, hint: 'give an existing recurrences.edn with --recurrences FILE' });
  }
  return parseRecurrences(text, file, defaultActor);
}
