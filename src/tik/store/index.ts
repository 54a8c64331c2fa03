/**
 * tik's stores: the EventStore contract, the file store (upstream's layout), discovery, ticket
 * prefixes, and loading a ticket with its pinned definition for a read.
 */
export { type EventStore, type StoredEvent, type ActorEntry, type StoreKind } from './store.js';
export { type StoreProblem, problem } from './problem.js';
export {
  CONTENT_ID,
  TICKET_UUID,
  SIDECAR_NAME,
  sha256Id,
  signatureSidecarName,
  checkContentId,
  checkTicket,
} from './store-names.js';
export { canonicalTextProblem } from './canonical-text.js';
export { resolveTicket } from './resolve-ticket.js';
export { type Pin, type PinResolution, LoadContext, pinOf } from './resolve-pin.js';
export { type LoadedTicket, loadTicket, admitEvents, eventFile } from './load-ticket.js';
export { FileStore, type FileStoreOptions } from './file/file-store.js';
export { type StoreLayout, discoverRoot, detectLayout, hasStoreMarker } from './file/discover.js';
export { openFileStore, initStore } from './file/open-file-store.js';
export { type StoreRoot, storeRoot } from './store-root.js';
export { SqliteStore } from './sqlite/sqlite-store.js';
export { PostgresStore, isPostgresUrl, parsePostgresStoreUrl } from './postgres/postgres-store.js';
export { MemoryStore } from './memory/memory-store.js';
export { openStore, closeStore, initSqliteStore, type OpenStoreOptions } from './open-store.js';
export { copyStore, migrate, migrateStore, eventKeys, type CopyCounts, type MigrateRequest, type MigrateTarget } from './migrate.js';
export { exportStore, importTree, checkImportTree, type ImportProblem } from './export-import.js';
