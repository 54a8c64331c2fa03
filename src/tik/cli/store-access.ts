import { readFileSync } from 'node:fs';
import { effectiveRegister } from '../roles/effective-register.js';
import { parseOpenSshPrivateKey, type SshPrivateKey } from '../../core/sshsig.js';
import { readEdn } from '../edn/index.js';
import { isMap, type EdnMap } from '../edn/value.js';
import { TikError } from '../errors.js';
import {
  missingParents,
  parseEvent,
  parseProcess,
  resolveRoles,
  type ProcessDef,
  type Roles,
  type TikEvent,
} from '../kernel/index.js';
import { discoverRoot } from '../store/file/discover.js';
import { initStore } from '../store/file/open-file-store.js';
import { closeStore, initSqliteStore, openStore as openStoreAt } from '../store/open-store.js';
import { isPostgresUrl } from '../store/postgres/postgres-store.js';
import { resolveTicket } from '../store/resolve-ticket.js';
import type { EventStore } from '../store/store.js';
import { sha256Id } from '../store/store-names.js';
import { signEvent } from '../verify/index.js';
import type { CliContext } from './context.js';
import { pinOf } from './pin.js';

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
  return trackStore(ctx, await openStoreAt(storeTarget(ctx)));
}

/** Release every store this run opened (called once by `runTik`). */
export async function closeRunStores(ctx: CliContext): Promise<void> {
  const list = opened.get(ctx) ?? [];
  opened.delete(ctx);
  for (const s of list) await closeStore(s).catch(() => undefined);
}

/** `tik init`: create a file store; returns its directory. */
export async function initFileStore(root: string, options: { hidden: boolean }): Promise<string> {
  const store = await initStore(root, { hidden: options.hidden });
  return store.location;
}

/** `tik init --sqlite`: create a SQLite store (`tik.db`); returns the database path. */
export async function initSqliteFileStore(root: string, options: { hidden: boolean }): Promise<string> {
  const store = await initSqliteStore(root, { hidden: options.hidden });
  await store.close();
  return store.location;
}

/** A ticket as the read and write verbs see it. */
export interface OpenTicket {
  readonly ticket: string;
  readonly events: readonly TikEvent[];
  /** The pinned definition, or undefined when it cannot be resolved (then reads fail clearly). */
  readonly def: ProcessDef | undefined;
  readonly roles: Roles;
  readonly missingParents: readonly string[];
  /** Where the definition came from: `by-hash`, `named` (fallback), or why it is missing. */
  readonly defSource: string;
}

/** Parse a ticket's stored events, checking that each file's bytes hash to its name. */
export function parseStoredEvents(ticket: string, stored: readonly { id: string; bytes: Uint8Array }[], location: string): TikEvent[] {
  return stored.map(({ id, bytes }) => {
    const file = `${location}/tickets/${ticket}/events/${id}.edn`;
    const actual = sha256Id(bytes);
    if (actual !== id) {
      throw new TikError('event/hash-mismatch', `the bytes of ${file} hash to ${actual}, not to its name`, {
        where: file,
        hint: 'an event file must never be edited; restore it from another replica, or run tik verify',
      });
    }
    const text = Buffer.from(bytes).toString('utf8');
    return parseEvent(text, id, file);
  });
}

/** Read the roles register in effect (the roles ticket, else `roles.edn`), if any. */
export async function readRegister(store: EventStore): Promise<EdnMap | undefined> {
  // the replicated roles ticket when it holds a register, else roles.edn (docs/tik-sync.md, "Roles")
  const { text } = await effectiveRegister(store);
  if (text === undefined) return undefined;
  const v = readEdn(text, `${store.location}/roles.edn`);
  if (!isMap(v)) {
    throw new TikError('store/bad-roles', `${store.location}/roles.edn is not a map {role {:members [...]}}`, {
      where: `${store.location}/roles.edn`,
      hint: 'e.g. {:triager {:members ["seb"]}}',
    });
  }
  return v;
}

/**
 * Resolve a ticket's pinned definition (§4.2): the state's hash → `processes/by-hash/<hash>.edn`
 * (checked to hash to its name); else the named `processes/<name>.edn`, warning if its hash
 * differs from the pin.
 */
export async function resolveDefinition(
  ctx: CliContext | undefined,
  store: EventStore,
  events: readonly TikEvent[],
): Promise<{ def: ProcessDef | undefined; source: string }> {
  const { hash, name } = pinOf(events);
  if (hash !== undefined) {
    const text = await store.readProcessByHash(hash);
    if (text !== undefined) {
      const file = `processes/by-hash/${hash}.edn`;
      const def = parseProcess(readEdn(text, file), file);
      if (def.hash !== hash) {
        throw new TikError('process/hash-mismatch', `${file} hashes to ${def.hash}, not to its name`, {
          where: file,
          hint: 'an archived definition must never be edited; restore it or run tik verify',
        });
      }
      return { def, source: 'by-hash' };
    }
  }
  if (name !== undefined) {
    const text = await store.readNamedProcess(name).catch(() => undefined);
    if (text !== undefined) {
      const file = `processes/${name}.edn`;
      const def = parseProcess(readEdn(text, file), file);
      if (hash !== undefined && def.hash !== hash) {
        ctx?.warn(`the pinned definition ${hash} is not archived; using ${file} (${def.hash}), which differs`);
      }
      return { def, source: 'named' };
    }
  }
  return { def: undefined, source: hash ? `missing ${hash}` : name ? `missing processes/${name}.edn` : 'no create event' };
}

/** Resolve a prefix and load the ticket (events, pinned definition, roles). Warns on a partial log. */
export async function openTicket(ctx: CliContext, store: EventStore, prefix: string): Promise<OpenTicket> {
  const ticket = await resolveTicket(store, prefix);
  return loadTicketAt(ctx, store, ticket);
}

export async function loadTicketAt(ctx: CliContext | undefined, store: EventStore, ticket: string): Promise<OpenTicket> {
  const events = parseStoredEvents(ticket, await store.events(ticket), store.location);
  const { def, source } = await resolveDefinition(ctx, store, events);
  const register = await readRegister(store);
  const roles: Roles = def ? resolveRoles(def, register) : new Map();
  const missing = missingParents(events);
  if (missing.length > 0) ctx?.warn(`ticket ${ticket}: log INCOMPLETE, ${missing.length} parent event(s) missing`);
  return { ticket, events, def, roles, missingParents: missing, defSource: source };
}

/** The definition of an open ticket, or a clear error when the pin cannot be resolved. */
export function requireDef(t: OpenTicket): ProcessDef {
  if (!t.def) {
    throw new TikError('process/unresolved', `ticket ${t.ticket}: its process definition cannot be found (${t.defSource})`, {
      where: t.ticket,
      hint: 'restore processes/by-hash/<hash>.edn or processes/<name>.edn from another replica',
    });
  }
  return t.def;
}

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
  return (await signEvent(store, ticket, id, key)).name;
}
