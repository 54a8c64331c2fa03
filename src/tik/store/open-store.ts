/**
 * Choosing the backend for a store root (tik-model.md §1.9, §8.1):
 * - a `postgresql://` (or `postgres://`) URL → the PostgreSQL store;
 * - a directory holding `tik.db` (or `.tik/tik.db`) → the SQLite store;
 * - a directory holding `tickets/` (or `.tik/`) → the file store;
 * - both `tik.db` and `tickets/` → refused (`store/ambiguous-layout`);
 * - nothing → `store/not-found`.
 *
 * SQL stores hold a connection: release it with `closeStore` when done.
 */
import { dirname, join } from 'node:path';
import { TikError } from '../errors.js';
import { detectLayout } from './file/discover.js';
import { HIDDEN_DIR } from './file/file-layout.js';
import { FileStore } from './file/file-store.js';
import { isPostgresUrl } from './postgres/postgres-url.js';
// The SQL backends load their drivers (pg, better-sqlite3): imported when a store of that kind is
// opened, so that commands on a file store, and `tik --help`, do not pay for them.
import type { SqliteStore } from './sqlite/sqlite-store.js';
import type { EventStore } from './store.js';
import { recoverMigration } from './migration-journal.js';

export interface OpenStoreOptions {
  /** Default true: flush every file write (false for bulk copies: import, export, migrate). */
  readonly durable?: boolean;
}

/** Opens the store at a root directory or PostgreSQL URL. */
export async function openStore(rootOrUrl: string, options: OpenStoreOptions = {}): Promise<EventStore> {
  if (isPostgresUrl(rootOrUrl)) return (await import('./postgres/postgres-store.js')).PostgresStore.open(rootOrUrl);
  // a migration killed here earlier is finished or undone before the layout is read
  await recoverMigration(rootOrUrl);
  const layout = detectLayout(rootOrUrl);
  if (layout.kind === 'file') return new FileStore(layout.base, options);
  if (layout.kind === 'sqlite') return (await import('./sqlite/sqlite-store.js')).SqliteStore.open(dirname(layout.path), options);
  throw new TikError('store/not-found', `no tik store at ${layout.root}`, {
    where: layout.root,
    hint: 'run `tik init` (or `tik init --sqlite`) there, or set TIK_ROOT / --root to an existing store',
  });
}

/** Releases a store's connection, if it holds one (file stores hold none). */
export async function closeStore(store: EventStore): Promise<void> {
  const c = (store as { close?: () => Promise<void> }).close;
  if (typeof c === 'function') await c.call(store);
}

/**
 * Creates a SQLite store (`tik.db` with its tables, `processes/by-hash/`) at `root`, under
 * `.tik/` when `hidden`. Idempotent on an existing SQLite store; refuses a root that holds a file store.
 */
export async function initSqliteStore(root: string, options: { readonly hidden?: boolean } & OpenStoreOptions = {}): Promise<SqliteStore> {
  const layout = detectLayout(root);
  const hidden = options.hidden ?? false;
  if (layout.kind === 'file') {
    throw new TikError('store/exists', `${layout.root} already holds a file store`, {
      where: layout.base,
      hint: 'use it, or convert it with `tik store migrate --to sqlite`',
    });
  }
  if (layout.kind === 'sqlite') {
    const isHidden = dirname(layout.path) !== layout.root;
    if (isHidden !== hidden) {
      throw new TikError('store/exists', `${layout.root} already holds a ${isHidden ? 'hidden (.tik/)' : 'visible'} SQLite store`, {
        where: layout.path,
        hint: 'use the existing store, or choose another directory',
      });
    }
  }
  const base = hidden ? join(layout.root, HIDDEN_DIR) : layout.root;
  const { SqliteStore } = await import('./sqlite/sqlite-store.js');
  const store = await SqliteStore.open(base, options);
  await store.ensureLayout();
  return store;
}
