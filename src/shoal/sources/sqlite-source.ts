/**
 * SQLite files through `better-sqlite3`, opened read-only for each statement (a fresh view of the
 * file, no handle kept on a file that may be replaced). Integers come back as bigint (exact),
 * reals as numbers, text as strings, blobs as Buffers.
 *
 * Limits: better-sqlite3 runs a statement synchronously and offers no way to interrupt it, so a
 * SQLite statement cannot be stopped once started (nor cancelled when the client goes away). The
 * driver refuses to start one after the request was aborted or its deadline passed; how long a
 * started statement runs is bounded only by the file and the query (docs/shoal.md, Limits).
 */
import Database from 'better-sqlite3';
import type { SqlLiteral } from './sql-literal.js';
import { sourceFailure } from './source-errors.js';
import type { FetchResult, SourceConnection, SourceDriver, SourceLimits } from './source-driver.js';
import { ShoalError } from '../errors.js';
import { abortError, type CancelSignal } from './abortable.js';

export class SqliteSource implements SourceDriver {
  readonly dialect = 'sqlite' as const;
  readonly sourceId: string;
  private readonly path: string;

  // Limits are accepted for the common driver shape; there is no way to apply a timeout mid-statement.
  constructor(conn: SourceConnection, _limits: SourceLimits = {}) {
    this.sourceId = conn.id;
    if (conn.path === undefined || conn.path === '') {
      throw new ShoalError('SOURCE_CONFIG_INVALID', `sqlite source "${conn.id}" has no path`, {
        where: `sources.${conn.id}.path`,
        hint: 'set path to the SQLite database file',
      });
    }
    this.path = conn.path;
  }

  private open(): Database.Database {
    try {
      return new Database(this.path, { readonly: true, fileMustExist: true });
    } catch (e) {
      throw sourceFailure(this.sourceId, e, `opening ${this.path}`);
    }
  }

  async query(sql: string, params: readonly SqlLiteral[], signal?: CancelSignal): Promise<FetchResult> {
    if (signal?.aborted) throw abortError(signal, this.sourceId);
    const db = this.open();
    try {
      const stmt = db.prepare(sql).raw(true).safeIntegers(true);
      const columns = stmt.columns().map((c) => ({ driver: 'sqlite' as const, name: c.name, declared: c.type }));
      const rows = stmt.all(...params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p))) as unknown[][];
      return { columns, rows };
    } catch (e) {
      throw sourceFailure(this.sourceId, e, 'fetching rows');
    } finally {
      db.close();
    }
  }

  async ping(): Promise<void> {
    const db = this.open();
    try {
      db.prepare('SELECT 1').get();
    } catch (e) {
      throw sourceFailure(this.sourceId, e, 'checking health');
    } finally {
      db.close();
    }
  }

  async close(): Promise<void> {
    // Nothing is held between statements.
  }
}
