/**
 * SqlClient over better-sqlite3. The driver is synchronous, so a busy lock must never be waited for
 * synchronously (two handles in one process would deadlock the event loop): the busy timeout is 0
 * and SQLITE_BUSY is retried asynchronously with backoff. One handle runs one thing at a time: every
 * call queues behind an open transaction on the same handle.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { CodedError } from '../errors.js';
import type { SqlClient, SqlExecutor, SqlRow, SqlValue, TransactionOptions } from './sql-client.js';

export interface SqliteClientOptions {
  /** Give up on a busy database after this long (default 30 s). */
  readonly busyTimeoutMs?: number;
  /** Fail (SQLITE_CANTOPEN) instead of creating the file when it is missing. */
  readonly mustExist?: boolean;
}

export async function openSqliteClient(path: string, options: SqliteClientOptions = {}): Promise<SqlClient> {
  if (path !== ':memory:' && !options.mustExist) mkdirSync(dirname(path), { recursive: true });
  // loaded on first open, so that a CLI which never opens a database does not pay for the driver
  const { default: Sqlite } = await import('better-sqlite3');
  const db = new Sqlite(path, { timeout: 0, fileMustExist: options.mustExist ?? false });
  const client = new SqliteClient(db, options.busyTimeoutMs ?? 30_000);
  try {
    // switching to WAL needs a moment of exclusive access: another process may be starting too
    if (path !== ':memory:') await client.exec('PRAGMA journal_mode = WAL');
    await client.exec('PRAGMA foreign_keys = ON');
  } catch (e) {
    db.close();
    throw e;
  }
  return client;
}

class SqliteClient implements SqlClient {
  readonly dialect = 'sqlite' as const;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly direct: SqlExecutor;

  constructor(
    private readonly db: Database.Database,
    private readonly busyTimeoutMs: number,
  ) {
    this.direct = {
      dialect: 'sqlite',
      query: async <R extends SqlRow>(sql: string, params: readonly SqlValue[] = []) => this.retry(() => this.queryNow<R>(sql, params)),
      run: async (sql, params = []) => this.retry(() => this.runNow(sql, params)),
      exec: async (script) => this.retry(() => void this.db.exec(script)),
    };
  }

  query<R extends SqlRow = SqlRow>(sql: string, params: readonly SqlValue[] = []): Promise<R[]> {
    return this.serial(() => this.direct.query<R>(sql, params));
  }

  run(sql: string, params: readonly SqlValue[] = []): Promise<{ readonly rowCount: number }> {
    return this.serial(() => this.direct.run(sql, params));
  }

  exec(script: string): Promise<void> {
    return this.serial(() => this.direct.exec(script));
  }

  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    return this.serial(async () => {
      await this.retry(() => void this.db.exec(options.readOnly ? 'BEGIN' : 'BEGIN IMMEDIATE'));
      let result: T;
      try {
        result = await fn(this.direct);
      } catch (e) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw e;
      }
      try {
        await this.retry(() => void this.db.exec('COMMIT'));
      } catch (e) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw e;
      }
      return result;
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.catch(() => undefined);
    this.db.close();
  }

  private queryNow<R>(sql: string, params: readonly SqlValue[]): R[] {
    const stmt = this.db.prepare(sql);
    const bound = params.map(bind);
    if (stmt.reader) return stmt.all(...bound) as R[];
    stmt.run(...bound);
    return [];
  }

  private runNow(sql: string, params: readonly SqlValue[]): { rowCount: number } {
    return { rowCount: this.db.prepare(sql).run(...params.map(bind)).changes };
  }

  private serial<T>(op: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new CodedError('SQL_CLOSED', 'the SQLite handle is closed'));
    const next = this.queue.then(op, op);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async retry<T>(op: () => T): Promise<T> {
    const deadline = Date.now() + this.busyTimeoutMs;
    for (let delay = 2; ; delay = Math.min(delay * 2, 100)) {
      try {
        return op();
      } catch (e) {
        const code = (e as { code?: string }).code ?? '';
        // BUSY_SNAPSHOT needs the whole transaction restarted, so retrying the statement can't help
        const transient = /^SQLITE_(BUSY|LOCKED)/.test(code) && code !== 'SQLITE_BUSY_SNAPSHOT';
        if (!transient || Date.now() > deadline) throw e;
      }
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

function bind(v: SqlValue): unknown {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof Uint8Array && !Buffer.isBuffer(v)) return Buffer.from(v);
  return v ?? null;
}
