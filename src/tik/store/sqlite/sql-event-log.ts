/**
 * The log half of a SQL store: `events(id TEXT PRIMARY KEY, ticket TEXT NOT NULL, bytes BLOB NOT NULL)`
 * indexed on ticket, and `sidecars(name TEXT PRIMARY KEY, ticket, bytes)` (tik-model.md §1.9).
 * Written once for both dialects: SQLite (upstream's `tik.db`) and PostgreSQL (the same shape with
 * `bytea`, in one schema per store). Events are inserted with `INSERT OR IGNORE` (PostgreSQL:
 * `ON CONFLICT DO NOTHING`), sidecars replaced (`INSERT OR REPLACE` / `ON CONFLICT DO UPDATE`);
 * bytes are stored verbatim. Every argument is checked before the first statement runs.
 */
import type { SqlClient } from '../../../core/sql/sql-client.js';
import { TikError } from '../../errors.js';
import type { EventRef, SidecarEntry, StoredEvent } from '../store.js';
import { checkBytesMatch, checkContentId, checkSidecarName, checkTicket } from '../store-names.js';

/** Table names, already quoted for the dialect (e.g. `"tik"."events"`). */
export interface LogTables {
  readonly events: string;
  readonly sidecars: string;
}

/** The DDL of the log tables; `prefix` is the quoted schema plus a dot, or ''. */
export function logSchema(dialect: 'sqlite' | 'postgres', prefix: string): string {
  const blob = dialect === 'sqlite' ? 'BLOB' : 'bytea';
  const idx = dialect === 'sqlite' ? `${prefix}events_ticket` : 'events_ticket';
  return [
    `CREATE TABLE IF NOT EXISTS ${prefix}events (id TEXT PRIMARY KEY, ticket TEXT NOT NULL, bytes ${blob} NOT NULL);`,
    `CREATE INDEX IF NOT EXISTS ${idx} ON ${prefix}events (ticket);`,
    `CREATE TABLE IF NOT EXISTS ${prefix}sidecars (name TEXT PRIMARY KEY, ticket TEXT, bytes ${blob});`,
    `CREATE INDEX IF NOT EXISTS ${dialect === 'sqlite' ? `${prefix}sidecars_ticket` : 'sidecars_ticket'} ON ${prefix}sidecars (ticket);`,
  ].join('\n');
}

/** A Buffer view of bytes (better-sqlite3 binds Buffers, not plain Uint8Arrays). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function toBytes(v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  if (typeof v === 'string') return Buffer.from(v, 'utf8'); // a row written as TEXT by another tool
  throw new TypeError(`expected bytes, got ${typeof v}`);
}

export class SqlEventLog {
  constructor(
    private readonly db: SqlClient,
    private readonly t: LogTables,
  ) {}

  async append(ticket: string, id: string, bytes: Uint8Array): Promise<boolean> {
    checkTicket(ticket);
    checkContentId(id);
    checkBytesMatch(id, bytes, `ticket ${ticket}`);
    const sql =
      this.db.dialect === 'sqlite'
        ? `INSERT OR IGNORE INTO ${this.t.events} (id, ticket, bytes) VALUES (?, ?, ?)`
        : `INSERT INTO ${this.t.events} (id, ticket, bytes) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING`;
    const { rowCount } = await this.db.run(sql, [id, ticket, asBuffer(bytes)]);
    if (rowCount === 1) return true;
    // `id` is the table's key: the same bytes filed under another ticket cannot be a second row
    const rows = await this.db.query<{ ticket: string }>(`SELECT ticket FROM ${this.t.events} WHERE id = ?`, [id]);
    const held = rows[0]?.ticket;
    if (held !== undefined && held !== ticket) {
      throw new TikError('store/ticket-mismatch', `event ${id} is already stored under ticket ${held}, not ${ticket}`, {
        where: `ticket ${ticket}`,
        hint: "an event belongs to the ticket its :event/ticket names; append it under that ticket",
      });
    }
    return false;
  }

  async events(ticket: string): Promise<readonly StoredEvent[]> {
    checkTicket(ticket);
    const rows = await this.db.query<{ id: string; bytes: unknown }>(`SELECT id, bytes FROM ${this.t.events} WHERE ticket = ?`, [ticket]);
    return rows.map((r) => Object.freeze({ id: r.id, bytes: toBytes(r.bytes) }));
  }

  /** Tickets with an event or a sidecar, sorted. */
  async ticketIds(): Promise<readonly string[]> {
    const rows = await this.db.query<{ ticket: string }>(
      `SELECT ticket FROM ${this.t.events} UNION SELECT ticket FROM ${this.t.sidecars} WHERE ticket IS NOT NULL`,
    );
    return rows.map((r) => r.ticket).sort();
  }

  async hasEvent(ticket: string, id: string): Promise<boolean> {
    checkTicket(ticket);
    checkContentId(id);
    const rows = await this.db.query(`SELECT 1 AS one FROM ${this.t.events} WHERE id = ? AND ticket = ?`, [id, ticket]);
    return rows.length > 0;
  }

  async eventBytes(ticket: string, id: string): Promise<Uint8Array | undefined> {
    checkTicket(ticket);
    checkContentId(id);
    const rows = await this.db.query<{ bytes: unknown }>(`SELECT bytes FROM ${this.t.events} WHERE id = ? AND ticket = ?`, [id, ticket]);
    return rows.length === 0 ? undefined : toBytes(rows[0]!.bytes);
  }

  /** Every (ticket, id) of the log: for migrate's id-set check. */
  /** Every (ticket, id) of the log, without bytes. */
  async allIds(): Promise<readonly EventRef[]> {
    return this.db.query<{ ticket: string; id: string }>(`SELECT ticket, id FROM ${this.t.events}`);
  }

  /** Every (ticket, name) of the sidecars, without bytes. */
  async allSidecarNames(): Promise<readonly SidecarEntry[]> {
    return this.db.query<{ ticket: string; name: string }>(`SELECT ticket, name FROM ${this.t.sidecars} WHERE ticket IS NOT NULL`);
  }

  async putSidecar(ticket: string, name: string, bytes: Uint8Array): Promise<boolean> {
    checkTicket(ticket);
    checkSidecarName(name);
    const old = await this.readSidecar(ticket, name);
    if (old !== undefined && Buffer.from(old).equals(asBuffer(bytes))) return false;
    const sql =
      this.db.dialect === 'sqlite'
        ? `INSERT OR REPLACE INTO ${this.t.sidecars} (name, ticket, bytes) VALUES (?, ?, ?)`
        : `INSERT INTO ${this.t.sidecars} (name, ticket, bytes) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET ticket = EXCLUDED.ticket, bytes = EXCLUDED.bytes`;
    await this.db.run(sql, [name, ticket, asBuffer(bytes)]);
    return true;
  }

  async sidecarNames(ticket: string): Promise<readonly string[]> {
    checkTicket(ticket);
    const rows = await this.db.query<{ name: string }>(`SELECT name FROM ${this.t.sidecars} WHERE ticket = ?`, [ticket]);
    return rows.map((r) => r.name).sort();
  }

  async readSidecar(ticket: string, name: string): Promise<Uint8Array | undefined> {
    checkTicket(ticket);
    checkSidecarName(name);
    const rows = await this.db.query<{ bytes: unknown }>(`SELECT bytes FROM ${this.t.sidecars} WHERE name = ? AND ticket = ?`, [name, ticket]);
    return rows.length === 0 || rows[0]!.bytes === null ? undefined : toBytes(rows[0]!.bytes);
  }
}
