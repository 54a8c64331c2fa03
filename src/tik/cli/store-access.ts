import { readFileSync } from 'node:fs';
import { parseOpenSshPrivateKey, type SshPrivateKey } from '../../core/sshsig.js';
import { TikError } from '../errors.js';
import { discoverRoot } from '../store/file/discover.js';
import { isPostgresUrl } from '../store/postgres/postgres-url.js';
import type { EventStore } from '../store/store.js';
import type { CliContext } from './context.js';
// Opening, signing and syncing are imported when a verb first needs them: every command module
// depends on this one, so what it loads statically is paid by `tik --help` (CLI start-up).

/**
 * The CLI's one door to the store: opening it, loading a ticket for a verb (events parsed, the
 * pinned definition resolved, the roles register merged), and signing with `TIK_KEY`. Reads never
 * write; a malformed event file or bytes that do not hash to their name is an error naming the file.
 */

/** `TIK_ROOT` › the nearest ancestor holding a store (never above `$HOME`) › the cwd. */
export function discoverStoreRoot(cwd: string, env: Readonly<Record<string, string | undefined>>): string {
  return discoverRoot(cwd, env);
}

/** The run's store: `--root`/`TIK_ROOT` as a `postgresql://` URL, else the root directory. */
export function storeTarget(ctx: CliContext): string {
  const raw = ctx.globals().root ?? ctx.io.env.TIK_ROOT;
  return raw !== undefined && isPostgresUrl(raw) ? raw : ctx.root();
}

/** Stores opened during a run, closed by `closeRunStores` when the run ends (SQL stores hold connections). */
const opened = new WeakMap<CliContext, EventStore[]>();

/** Track a store opened for this run so that `closeRunStores` releases it. */
export function trackStore<S extends EventStore>(ctx: CliContext, store: S): S {
  const list = opened.get(ctx) ?? [];
  list.push(store);
  opened.set(ctx, list);
  return store;
}

/** Open the store at the run's root (file, SQLite or PostgreSQL: see store/open-store.ts). */
export async function openStore(ctx: CliContext): Promise<EventStore> {
  const remote = ctx.globals().remote;
  if (remote !== undefined && remote !== '') {
    let local: string | undefined;
    try {
      local = storeTarget(ctx);
    } catch {
      local = undefined;
    }
    const { openRemoteStore } = await import('./remote-store.js');
    return openRemoteStore(ctx, remote, local);
  }
  const { openStore: openStoreAt } = await import('../store/open-store.js');
  return trackStore(ctx, await openStoreAt(storeTarget(ctx)));
}

/** Release every store this run opened (called once by `runTik`). */
export async function closeRunStores(ctx: CliContext): Promise<void> {
  const list = opened.get(ctx) ?? [];
  opened.delete(ctx);
  if (list.length === 0) return;
  const { closeStore } = await import('../store/open-store.js');
  for (const s of list) await closeStore(s).catch(() => undefined);
}

/** `tik init`: create a file store; returns its directory. */
export async function initFileStore(root: string, options: { hidden: boolean }): Promise<string> {
  const { initStore } = await import('../store/file/open-file-store.js');
  const store = await initStore(root, { hidden: options.hidden });
  return store.location;
}

/** `tik init --sqlite`: create a SQLite store (`tik.db`); returns the database path. */
export async function initSqliteFileStore(root: string, options: { hidden: boolean }): Promise<string> {
  const { initSqliteStore } = await import('../store/open-store.js');
  const store = await initSqliteStore(root, { hidden: options.hidden });
  await store.close();
  return store.location;
}

export type { OpenTicket } from '../app/ticket-loader.js';

let cachedKey: { path: string; key: SshPrivateKey } | undefined;

/** The signing key named by `TIK_KEY` (an unencrypted OpenSSH Ed25519 private key file), if any. */
export function envSigningKey(ctx: CliContext, explicit?: string): SshPrivateKey | undefined {
  const path = explicit ?? ctx.io.env.TIK_KEY;
  if (path === undefined || path === '') return undefined;
  const full = ctx.path(path);
  if (cachedKey?.path === full) return cachedKey.key;
  let text: string;
  try {
    text = readFileSync(full, 'utf8');
  } catch {
    const where = explicit !== undefined ? '--key' : 'TIK_KEY';
    throw new TikError('cli/no-file', `${where}: cannot read ${path}`, { where, hint: 'give an OpenSSH ed25519 private key file' });
  }
  const key = parseOpenSshPrivateKey(text, path);
  cachedKey = { path: full, key };
  return key;
}

/** Write the `<id>.sig.<fpr16>` authorship sidecar for an event (namespace `tik-event`). */
export async function signStoredEvent(store: EventStore, ticket: string, id: string, key: SshPrivateKey): Promise<string> {
  const { signEvent } = await import('../verify/index.js');
  return (await signEvent(store, ticket, id, key)).name;
}
