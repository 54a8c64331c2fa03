/**
 * Store discovery and layout detection (tik-model.md §8.1 porcelain, §1.9).
 *
 * Discovery: `TIK_ROOT` if set; else the nearest ancestor of the working directory (itself
 * included) holding `.tik/`, `tickets/` or `tik.db`, never looking above `$HOME`; else the
 * working directory.
 */
import { statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { TikError } from '../../errors.js';
import { HIDDEN_DIR, SQLITE_FILE, TICKETS_DIR } from './file-layout.js';

export type StoreLayout =
  /** A file store; `base` is the root or `<root>/.tik`. */
  | { readonly kind: 'file'; readonly root: string; readonly base: string; readonly hidden: boolean }
  | { readonly kind: 'sqlite'; readonly root: string; readonly path: string }
  /** Nothing there yet (`tik init` makes one). */
  | { readonly kind: 'none'; readonly root: string };

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** True if `dir` holds a store marker: `.tik/`, `tickets/` or `tik.db`. */
export function hasStoreMarker(dir: string): boolean {
  return isDir(join(dir, HIDDEN_DIR)) || isDir(join(dir, TICKETS_DIR)) || isFile(join(dir, SQLITE_FILE));
}

/**
 * The store root for a command run in `cwd` with environment `env` (pass `process.env`).
 * Pure apart from `stat` calls; no clock, no writes.
 */
export function discoverRoot(cwd: string, env: Readonly<Record<string, string | undefined>>): string {
  const fromEnv = env.TIK_ROOT;
  if (fromEnv !== undefined && fromEnv !== '') return resolve(cwd, fromEnv);
  const start = resolve(cwd);
  const home = env.HOME !== undefined && env.HOME !== '' ? resolve(env.HOME) : undefined;
  let dir = start;
  for (;;) {
    if (hasStoreMarker(dir)) return dir;
    if (dir === home) break; // never above $HOME
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return start;
}

/**
 * What kind of store lives at `root`. A hidden `.tik/` wins over a visible layout; `tik.db`
 * beside `tickets/` is refused (upstream refuses the ambiguity, §1.9).
 */
export function detectLayout(root: string): StoreLayout {
  const r = resolve(root);
  const hidden = join(r, HIDDEN_DIR);
  if (isDir(hidden)) {
    if (isFile(join(hidden, SQLITE_FILE)) && isDir(join(hidden, TICKETS_DIR))) throw bothLayouts(hidden);
    if (isFile(join(hidden, SQLITE_FILE))) return { kind: 'sqlite', root: r, path: join(hidden, SQLITE_FILE) };
    return { kind: 'file', root: r, base: hidden, hidden: true };
  }
  const db = isFile(join(r, SQLITE_FILE));
  const tickets = isDir(join(r, TICKETS_DIR));
  if (db && tickets) throw bothLayouts(r);
  if (db) return { kind: 'sqlite', root: r, path: join(r, SQLITE_FILE) };
  if (tickets) return { kind: 'file', root: r, base: r, hidden: false };
  return { kind: 'none', root: r };
}

function bothLayouts(dir: string): TikError {
  return new TikError('store/ambiguous-layout', `${dir} holds both tik.db and tickets/`, {
    where: dir,
    hint: 'keep one: `tik store migrate --to sqlite|file` moves a store from one layout to the other',
  });
}
