/**
 * Where audit records are kept: the `audit_log` table of the registry database, through a
 * connection of its own (so audit writes never hold the registry's pool), held to the registry's
 * identity (a deleted or replaced registry refuses the append; the queue keeps the records).
 */
import type { SqlClient, SqlValue } from '../../core/sql/sql-client.js';
import { openIdentityCheckedClient } from '../registry/identity-checked-client.js';
import type { RegistryIdentity } from '../registry/registry-identity.js';
import type { AuditRecord, StoredAuditRecord } from './audit-record.js';
import { migrateAuditLog } from './audit-log-schema.js';

/** A read of the audit log: newest first, at most `limit` records. */
export interface AuditFilter {
  readonly principal?: string;
  readonly outcome?: string;
  readonly role?: string;
  /** Epoch ms: records at or after. */
  readonly since?: number;
  /** Epoch ms: records before. */
  readonly until?: number;
  /** Page cursor: records with an id below this one. */
  readonly before?: number;
  readonly limit: number;
}

export interface AuditStore {
  append(records: readonly AuditRecord[]): Promise<void>;
  list(filter: AuditFilter): Promise<readonly StoredAuditRecord[]>;
  close(): Promise<void>;
}

const COLUMNS = ['at_ms', 'instance_id', 'principal', 'role_id', 'method', 'path', 'status', 'outcome', 'sql_fingerprint', 'table_ids', 'route', 'row_count', 'duration_ms'] as const;
/** Rows per INSERT: 13 parameters each stays far below SQLite's and PostgreSQL's limits. */
const ROWS_PER_INSERT = 200;

const rowOf = (r: AuditRecord): SqlValue[] => [
  r.at, r.instance, r.principal, r.role, r.method, r.path, r.status, r.outcome, r.sql_fingerprint, JSON.stringify(r.tables), r.route, r.rows, Math.round(r.duration_ms),
];

interface AuditRow {
  id: number | string;
  at_ms: number | string;
  instance_id: string;
  principal: string;
  role_id: string | null;
  method: string;
  path: string;
  status: number | string;
  outcome: string;
  sql_fingerprint: string | null;
  table_ids: string;
  route: string | null;
  row_count: number | string | null;
  duration_ms: number | string;
  [k: string]: unknown;
}

const recordOf = (r: AuditRow): StoredAuditRecord => ({
  id: Number(r.id),
  at: Number(r.at_ms),
  instance: r.instance_id,
  principal: r.principal,
  role: r.role_id,
  method: r.method,
  path: r.path,
  status: Number(r.status),
  outcome: r.outcome,
  sql_fingerprint: r.sql_fingerprint,
  tables: JSON.parse(r.table_ids) as string[],
  route: r.route,
  rows: r.row_count === null ? null : Number(r.row_count),
  duration_ms: Number(r.duration_ms),
});

export class SqlAuditStore implements AuditStore {
  private constructor(private readonly db: SqlClient) {}

  /** Open the audit log in the registry's database (`url`, opened as `identity`), creating its table if missing. */
  static async open(url: string, identity: RegistryIdentity, options: { baseDir?: string } = {}): Promise<SqlAuditStore> {
    const db = await openIdentityCheckedClient(url, identity, { ...options, max: 2 });
    try {
      await migrateAuditLog(db);
    } catch (e) {
      await db.close().catch(() => undefined);
      throw e;
    }
    return new SqlAuditStore(db);
  }

  async append(records: readonly AuditRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.db.transaction(async (tx) => {
      for (let i = 0; i < records.length; i += ROWS_PER_INSERT) {
        const chunk = records.slice(i, i + ROWS_PER_INSERT);
        const row = `(${COLUMNS.map(() => '?').join(', ')})`;
        await tx.run(`INSERT INTO audit_log (${COLUMNS.join(', ')}) VALUES ${chunk.map(() => row).join(', ')}`, chunk.flatMap(rowOf));
      }
    });
  }

  async list(f: AuditFilter): Promise<readonly StoredAuditRecord[]> {
    const where: string[] = [];
    const params: SqlValue[] = [];
    const add = (clause: string, v: SqlValue | undefined): void => {
      if (v === undefined) return;
      where.push(clause);
      params.push(v);
    };
    add('principal = ?', f.principal);
    add('outcome = ?', f.outcome);
    add('role_id = ?', f.role);
    add('at_ms >= ?', f.since);
    add('at_ms < ?', f.until);
    add('id < ?', f.before);
    params.push(f.limit);
    const rows = await this.db.query<AuditRow>(
      `SELECT id, ${COLUMNS.join(', ')} FROM audit_log${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`,
      params,
    );
    return rows.map(recordOf);
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
