/**
 * The SQLite store (tik-model.md §1.9): the log in `<root>/tik.db` (or `<root>/.tik/tik.db`),
 * everything else on disk beside it, as upstream keeps it:
 *
 * ```
 * tik.db                                    events + sidecars tables (see sql-event-log.ts)
 * blobs/<ticket>/sha256-<hex>               artifact bytes, bare name
 * processes/…, roots/…, actors, roles.edn   exactly as in the file store (its code does the work)
 * ```
 *
 * Blobs live under `blobs/<ticket>/`, not `tickets/<ticket>/blobs/`, because a `tickets/`
 * directory beside `tik.db` is the ambiguous layout upstream refuses.
 */
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createFileAtomic } from '../../../core/fs-atomic.js';
import { openSqliteClient } from '../../../core/sql/sqlite-client.js';
import type { SqlClient } from '../../../core/sql/sql-client.js';
import { TikError } from '../../errors.js';
import { FileStore } from '../file/file-store.js';
import { SideFileDelegate } from '../side-file-delegate.js';
import type { EventRef, EventStore, SidecarEntry, StoredEvent } from '../store.js';
import { CONTENT_ID, TICKET_UUID, checkContentId, checkTicket, sha256Id } from '../store-names.js';
import { SqlEventLog, logSchema } from './sql-event-log.js';

export const SQLITE_BLOBS_DIR = 'blobs';

export interface SqliteStoreOptions {
  /** Default true: blob files are flushed before a write returns (false for bulk copies). */
  readonly durable?: boolean;
}

function ioError(e: unknown, path: string): TikError {
  const code = (e as { code?: string } | null)?.code ?? String(e);
  return new TikError('store/io', `cannot access ${path} (${code})`, { where: path, cause: e, hint: 'check the path and its permissions' });
}

export class SqliteStore extends SideFileDelegate implements EventStore {
  readonly kind = 'sqlite' as const;
  private readonly log: SqlEventLog;
  /** processes/, roots/, actors and roles.edn: the file store's code over the same directory. */
  protected readonly files: FileStore;

  private constructor(
    /** The directory holding `tik.db` (the root, or `<root>/.tik`). */
    readonly base: string,
    private readonly db: SqlClient,
    private readonly durable: boolean,
  ) {
    super();
    this.log = new SqlEventLog(db, { events: 'events', sidecars: 'sidecars' });
    this.files = new FileStore(base, { durable });
  }

  /** Opens (creating the tables if needed) the SQLite store whose database is `<base>/tik.db`. */
  static async open(base: string, options: SqliteStoreOptions = {}): Promise<SqliteStore> {
    const path = join(base, 'tik.db');
    let db: SqlClient;
    try {
      db = await openSqliteClient(path);
    } catch (e) {
      throw new TikError('store/io', `cannot open the SQLite store ${path}: ${(e as Error).message}`, {
        where: path,
        cause: e,
        hint: 'check that the file is a SQLite database and the directory is writable',
      });
    }
    try {
      await db.exec(logSchema('sqlite', ''));
    } catch (e) {
      await db.close();
      throw new TikError('store/io', `${path} is not a tik SQLite store: ${(e as Error).message}`, { where: path, cause: e });
    }
    return new SqliteStore(base, db, options.durable ?? true);
  }

  /** Creates `processes/by-hash/`, as `tik init` does for a file store. */
  async ensureLayout(): Promise<void> {
    const dir = join(this.base, 'processes', 'by-hash');
    try {
      await mkdir(dir, { recursive: true });
    } catch (e) {
      throw ioError(e, dir);
    }
  }

  get location(): string {
    return join(this.base, 'tik.db');
  }

  close(): Promise<void> {
    return this.db.close();
  }

  // ── the log ──────────────────────────────────────────────────────────────────────────────
  append(ticket: string, id: string, bytes: Uint8Array): Promise<boolean> {
    return this.log.append(ticket, id, bytes);
  }
  events(ticket: string): Promise<readonly StoredEvent[]> {
    return this.log.events(ticket);
  }
  async ticketIds(): Promise<readonly string[]> {
    const fromLog = await this.log.ticketIds();
    const fromBlobs = (await this.listDir(join(this.base, SQLITE_BLOBS_DIR))).filter((n) => TICKET_UUID.test(n));
    return [...new Set([...fromLog, ...fromBlobs])].sort();
  }
  hasEvent(ticket: string, id: string): Promise<boolean> {
    return this.log.hasEvent(ticket, id);
  }
  eventBytes(ticket: string, id: string): Promise<Uint8Array | undefined> {
    return this.log.eventBytes(ticket, id);
  }
  putSidecar(ticket: string, name: string, bytes: Uint8Array): Promise<boolean> {
    return this.log.putSidecar(ticket, name, bytes);
  }
  sidecarNames(ticket: string): Promise<readonly string[]> {
    return this.log.sidecarNames(ticket);
  }
  readSidecar(ticket: string, name: string): Promise<Uint8Array | undefined> {
    return this.log.readSidecar(ticket, name);
  }

  // ── blobs: blobs/<ticket>/<hash> ──────────────────────────────────────────────────────────
  private blobPath(ticket: string, hash: string): string {
    return join(this.base, SQLITE_BLOBS_DIR, ticket, hash);
  }

  private async listDir(path: string): Promise<string[]> {
    try {
      return await readdir(path);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return [];
      throw ioError(e, path);
    }
  }

  async putBlob(ticket: string, bytes: Uint8Array): Promise<string> {
    checkTicket(ticket);
    const hash = sha256Id(bytes);
    const path = this.blobPath(ticket, hash);
    try {
      await createFileAtomic(path, bytes, { durable: this.durable });
    } catch (e) {
      throw ioError(e, path);
    }
    return hash;
  }

  async readBlob(ticket: string, hash: string): Promise<Uint8Array | undefined> {
    checkTicket(ticket);
    checkContentId(hash, 'blob hash');
    const path = this.blobPath(ticket, hash);
    try {
      return new Uint8Array(await readFile(path));
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw ioError(e, path);
    }
  }

  /** Blob hashes of a ticket, sorted (for migrate and export). */
  async blobHashes(ticket: string): Promise<readonly string[]> {
    checkTicket(ticket);
    return (await this.listDir(join(this.base, SQLITE_BLOBS_DIR, ticket))).filter((n) => CONTENT_ID.test(n)).sort();
  }

  allEventIds(): Promise<readonly EventRef[]> {
    return this.log.allIds();
  }
  allSidecarNames(): Promise<readonly SidecarEntry[]> {
    return this.log.allSidecarNames();
  }
}
