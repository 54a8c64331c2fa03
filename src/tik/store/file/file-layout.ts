/**
 * Upstream's file-store layout (tik-model.md §1.9), as path functions over the store directory
 * (`<root>` or `<root>/.tik` for a hidden store):
 *
 * ```
 * tickets/<uuid>/events/sha256-<hex>.edn            event bytes
 * tickets/<uuid>/events/sha256-<hex>.sig.<fpr16>    authorship signature (ns tik-event)
 * tickets/<uuid>/events/sha256-<hex>.witness.<fpr16>
 * tickets/<uuid>/events/events.pack, events.pack.idx
 * tickets/<uuid>/blobs/sha256-<hex>                 artifact bytes, bare name
 * processes/<name>.edn, processes/by-hash/sha256-<hex>.edn [.sig.<fpr16>]
 * roots/sha256-<root>.witness.<fpr16>
 * actors, roles.edn
 * .tik-index/                                       disposable derived data (ours, not upstream's)
 * ```
 */
import { join } from 'node:path';

export const HIDDEN_DIR = '.tik';
export const TICKETS_DIR = 'tickets';
export const PROCESSES_DIR = 'processes';
export const BY_HASH_DIR = 'by-hash';
export const SQLITE_FILE = 'tik.db';
export const ACTORS_FILE = 'actors';
export const ROOTS_DIR = 'roots';
export const ROLES_FILE = 'roles.edn';
export const PACK_FILE = 'events.pack';
export const PACK_INDEX_FILE = 'events.pack.idx';
/** Disposable derived data (the `ls` index): never copied, synced or verified; safe to delete. */
export const DERIVED_DIR = '.tik-index';

export const ticketsDir = (base: string): string => join(base, TICKETS_DIR);
export const ticketDir = (base: string, ticket: string): string => join(base, TICKETS_DIR, ticket);
export const eventsDir = (base: string, ticket: string): string => join(base, TICKETS_DIR, ticket, 'events');
export const eventPath = (base: string, ticket: string, id: string): string => join(eventsDir(base, ticket), `${id}.edn`);
export const sidecarPath = (base: string, ticket: string, name: string): string => join(eventsDir(base, ticket), name);
export const blobsDir = (base: string, ticket: string): string => join(base, TICKETS_DIR, ticket, 'blobs');
export const blobPath = (base: string, ticket: string, hash: string): string => join(blobsDir(base, ticket), hash);
export const processesDir = (base: string): string => join(base, PROCESSES_DIR);
export const namedProcessPath = (base: string, name: string): string => join(base, PROCESSES_DIR, `${name}.edn`);
export const byHashDir = (base: string): string => join(base, PROCESSES_DIR, BY_HASH_DIR);
export const byHashPath = (base: string, hash: string): string => join(byHashDir(base), `${hash}.edn`);
export const rootsDir = (base: string): string => join(base, ROOTS_DIR);
export const actorsPath = (base: string): string => join(base, ACTORS_FILE);
export const rolesPath = (base: string): string => join(base, ROLES_FILE);
