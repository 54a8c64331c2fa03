/**
 * The PostgreSQL store: the SQLite store's shape on a shared server, for a deployment that
 * prefers one database to files. One **schema per store** (default `tik`; choose another with a
 * `schema` query parameter, `postgresql://user@host/db?schema=team_a`), holding:
 *
 * ```
 * events(id TEXT PRIMARY KEY, ticket TEXT NOT NULL, bytes bytea NOT NULL)   indexed on ticket
 * sidecars(name TEXT PRIMARY KEY, ticket TEXT, bytes bytea)
 * files(path TEXT PRIMARY KEY, bytes bytea NOT NULL)   everything else, under the file store's
 *                                                      relative paths (tickets/<t>/blobs/<hash>,
 *                                                      processes/…, roots/…, actors, roles.edn)
 * ```
 *
 * A server has no directory beside it, so blobs, definitions and the trust files live in `files`.
 * Appends are `INSERT … ON CONFLICT DO NOTHING`: two replicas appending the same event at once
 * both succeed and one row remains.
 */
import { CodedError } from '../../../core/errors.js';
import { openPostgresClient } from '../../../core/sql/postgres-client.js';
import type { SqlClient } from '../../../core/sql/sql-client.js';
import { redactUrl } from '../../../core/sql/sql-url.js';
import { TikError } from '../../errors.js';
import { KeyedFiles, type FileBag } from '../memory/keyed-files.js';
import { KeyedFilesDelegate } from '../side-file-delegate.js';
import type { EventRef, EventStore, SidecarEntry, StoredEvent } from '../store.js';
import { TICKET_UUID } from '../store-names.js';
import { SqlEventLog, asBuffer, logSchema } from '../sqlite/sql-event-log.js';

export const DEFAULT_PG_SCHEMA = 'tik';
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export { isPostgresUrl } from './postgres-url.js';

/** Splits the store's schema (query parameter `schema`) from the connection URL. */
export function parsePostgresStoreUrl(url: string): { readonly connect: string; readonly schema: string } {
  let u: URL;
  try {
    u = new URL(url.replace(/^postgres(ql)?(\+[A-Za-z0-9_]+)?:/i, 'postgresql:'));
  } catch {
    throw new TikError('store/bad-url', `not a PostgreSQL URL: ${redactUrl(url)}`, {
      where: 'url',
      hint: 'write postgresql://user:password@host:5432/database[?schema=name]',
    });
  }
  const schema = u.searchParams.get('schema') ?? DEFAULT_PG_SCHEMA;
  if (!SCHEMA_NAME.test(schema)) {
    throw new TikError('store/bad-url', `schema ${JSON.stringify(schema)} is not a plain lower-case SQL name`, {
      where: 'url ?schema=',
      hint: 'use letters, digits and underscores, starting with a letter, e.g. ?schema=tik_team_a',
    });
  }
  u.searchParams.delete('schema');
  return { connect: u.toString(), schema };
}

function sqlBag(db: SqlClient, table: string): FileBag {
  const like = (dir: string): string => `${dir.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`;
  return {
    get: async (p) => {
      const rows = await db.query<{ bytes: Uint8Array }>(`SELECT bytes FROM ${table} WHERE path = ?`, [p]);
      return rows.length === 0 ? undefined : new Uint8Array(rows[0]!.bytes);
    },
    put: async (p, b) => {
      await db.run(`INSERT INTO ${table} (path, bytes) VALUES (?, ?) ON CONFLICT (path) DO UPDATE SET bytes = EXCLUDED.bytes`, [p, asBuffer(b)]);
    },
    create: async (p, b) => (await db.run(`INSERT INTO ${table} (path, bytes) VALUES (?, ?) ON CONFLICT (path) DO NOTHING`, [p, asBuffer(b)])).rowCount === 1,
    list: async (dir) => {
      const rows = await db.query<{ path: string }>(`SELECT path FROM ${table} WHERE path LIKE ? ESCAPE '\\'`, [like(dir)]);
      const names = new Set(rows.map((r) => r.path.slice(dir.length + 1).split('/')[0]!));
      return [...names].sort();
    },
  };
}

/** One pool per connection URL in this process, shared by every store opened on it. */
interface PoolEntry {
  readonly db: SqlClient;
  refs: number;
  /** Schemas whose tables this process has already created. */
  readonly ensured: Map<string, Promise<void>>;
}
const pools = new Map<string, Promise<PoolEntry>>();

async function acquirePool(connect: string, url: string): Promise<PoolEntry> {
  let p = pools.get(connect);
  if (p === undefined) {
    p = openPostgresClient(connect).then((db) => ({ db, refs: 0, ensured: new Map<string, Promise<void>>() }));
    pools.set(connect, p);
  }
  try {
    const entry = await p;
    entry.refs++;
    return entry;
  } catch (e) {
    if (pools.get(connect) === p) pools.delete(connect);
    throw new TikError('store/unavailable', e instanceof CodedError ? e.message : String(e), {
      where: redactUrl(url),
      cause: e,
      hint: 'check the URL, that the server is up, and the credentials',
    });
  }
}

async function releasePool(connect: string, entry: PoolEntry): Promise<void> {
  entry.refs--;
  if (entry.refs > 0) return;
  const current = pools.get(connect);
  const same = current !== undefined && (await current.catch(() => undefined)) === entry;
  if (entry.refs > 0) return; // re-acquired while we looked
  if (same && pools.get(connect) === current) pools.delete(connect);
  await entry.db.close();
}

function ensureSchema(entry: PoolEntry, schema: string, url: string): Promise<void> {
  let done = entry.ensured.get(schema);
  if (done === undefined) {
    const q = `"${schema}".`;
    const ddl = [
      `CREATE SCHEMA IF NOT EXISTS "${schema}";`,
      logSchema('postgres', q),
      `CREATE TABLE IF NOT EXISTS ${q}files (path TEXT PRIMARY KEY, bytes bytea NOT NULL);`,
    ].join('\n');
    done = entry.db
      .transaction(async (tx) => {
        // concurrent IF NOT EXISTS can still collide on the catalog; serialise openers on a lock
        await tx.query('SELECT pg_advisory_xact_lock(hashtext(?))', [`tik-store:${schema}`]);
        await tx.exec(ddl);
      })
      .catch((e: unknown) => {
        entry.ensured.delete(schema);
        throw new TikError('store/io', `cannot create the tik tables in schema ${schema}: ${(e as Error).message}`, {
          where: redactUrl(url),
          cause: e,
          hint: 'the user needs CREATE on the database (or create the schema for it)',
        });
      });
    entry.ensured.set(schema, done);
  }
  return done;
}

export class PostgresStore extends KeyedFilesDelegate implements EventStore {
  readonly kind = 'postgres' as const;
  private readonly log: SqlEventLog;
  protected readonly files: KeyedFiles;

  private constructor(
    private readonly db: SqlClient,
    /** The store's schema. */
    readonly schema: string,
    readonly location: string,
    private readonly release: () => Promise<void>,
    private readonly forgetSchema: () => void,
  ) {
    super();
    const q = `"${schema}".`;
    this.log = new SqlEventLog(db, { events: `${q}events`, sidecars: `${q}sidecars` });
    this.files = new KeyedFiles(sqlBag(db, `${q}files`), location);
  }

  /**
   * Connects and creates the schema and tables if needed (idempotent; safe for concurrent openers).
   * Stores opened on the same connection URL in one process share one connection pool (a server
   * that runs a CLI verb per request does not reconnect each time); the pool closes with the last store.
   */
  static async open(url: string): Promise<PostgresStore> {
    const { connect, schema } = parsePostgresStoreUrl(url);
    const entry = await acquirePool(connect, url);
    try {
      await ensureSchema(entry, schema, url);
    } catch (e) {
      await releasePool(connect, entry);
      throw e;
    }
    return new PostgresStore(entry.db, schema, `${redactUrl(connect)} (schema ${schema})`, () => releasePool(connect, entry), () => entry.ensured.delete(schema));
  }

  private closed = false;

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.release();
  }

  /** Drops the store's schema and everything in it (migrate, after a verified copy; tests). */
  async drop(): Promise<void> {
    this.forgetSchema();
    await this.db.exec(`DROP SCHEMA IF EXISTS "${this.schema}" CASCADE`);
  }

  // ── the log ──
  append(ticket: string, id: string, bytes: Uint8Array): Promise<boolean> {
    return this.log.append(ticket, id, bytes);
  }
  events(ticket: string): Promise<readonly StoredEvent[]> {
    return this.log.events(ticket);
  }
  async ticketIds(): Promise<readonly string[]> {
    const fromBlobs = (await this.files.blobTickets()).filter((t) => TICKET_UUID.test(t));
    return [...new Set([...(await this.log.ticketIds()), ...fromBlobs])].sort();
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
  allEventIds(): Promise<readonly EventRef[]> {
    return this.log.allIds();
  }
  allSidecarNames(): Promise<readonly SidecarEntry[]> {
    return this.log.allSidecarNames();
  }
}
