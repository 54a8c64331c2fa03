/**
 * MySQL and MariaDB through `mysql2`: a small pool per source. DECIMAL, BIGINT, dates, times and
 * JSON come back as their exact text; small integers and floats as numbers; binary columns as
 * Buffers. The session runs in UTC.
 *
 * Limits: every session gets the configured statement timeout (MariaDB `max_statement_time`, or
 * MySQL's `max_execution_time` where that variable does not exist), so the server itself stops a
 * statement that runs too long. When the caller aborts, the running statement is stopped with
 * `KILL QUERY` from a separate connection, and its connection goes back to the pool only once the
 * statement has ended.
 */
import mysql from 'mysql2/promise';
import type { ConnectionOptions, FieldPacket, Pool, PoolConnection } from 'mysql2/promise';
import type { SqlLiteral } from './sql-literal.js';
import { resolveSecret } from '../config/secret.js';
import { isUnavailable, sourceFailure } from './source-errors.js';
import type { FetchResult, SourceConnection, SourceDriver, SourceLimits } from './source-driver.js';
import { abortable, type CancelSignal } from './abortable.js';

const UNSIGNED_FLAG = 32;
const BINARY_CHARSET = 63;

function isUnsigned(f: FieldPacket): boolean {
  return typeof f.flags === 'number' ? (f.flags & UNSIGNED_FLAG) !== 0 : f.flags.includes('UNSIGNED');
}

export class MysqlSource implements SourceDriver {
  readonly dialect = 'mysql' as const;
  readonly sourceId: string;
  private readonly pool: Pool;
  /** Where the killer connects: the pool's own server and credentials. */
  private readonly connection: ConnectionOptions;

  constructor(conn: SourceConnection, env: Readonly<Record<string, string | undefined>>, limits: SourceLimits = {}) {
    this.sourceId = conn.id;
    this.connection = {
      host: conn.host,
      port: conn.port !== undefined && conn.port !== 0 ? conn.port : 3306,
      database: conn.database,
      user: conn.username,
      password: conn.password === undefined ? undefined : resolveSecret(conn.password, env, `sources.${conn.id}.password`),
      connectTimeout: 5_000,
    };
    this.pool = mysql.createPool({
      ...this.connection,
      connectionLimit: 5,
      supportBigNumbers: true,
      bigNumberStrings: true,
      decimalNumbers: false,
      dateStrings: true,
      timezone: 'Z',
      // JSON as its text, not a parsed object: the engine stores it as JSON text.
      typeCast: (field, next) => (field.type === 'JSON' ? field.string('utf8') : next()),
    });
    // The event hands over the core (callback-style) connection: give it a callback so a failure
    // can't surface as an unhandled 'error' event. A failed SET shows up on the next statement.
    // Commands on one connection run in order, so these SETs precede its first statement.
    const timeout = limits.statementTimeoutMs;
    this.pool.on('connection', (c) => {
      const core = c as unknown as { query(sql: string, cb: (err: unknown) => void): unknown };
      const run = (sql: string, cb: (err: unknown) => void = () => undefined): void => {
        const r = core.query(sql, cb);
        if (r instanceof Promise) r.catch(() => undefined);
      };
      run("SET time_zone = '+00:00'");
      if (timeout !== undefined) {
        // MariaDB: seconds; MySQL has no max_statement_time but max_execution_time in ms (SELECT only).
        run(`SET SESSION max_statement_time = ${(timeout / 1000).toFixed(3)}`, (err) => {
          if (err) run(`SET SESSION max_execution_time = ${Math.round(timeout)}`);
        });
      }
    });
  }

  /** One statement on one pooled connection, stopped at the server with KILL QUERY if `signal` aborts. */
  private async run(sql: string, values: readonly unknown[], signal: CancelSignal | undefined): Promise<[unknown[][], FieldPacket[]]> {
    const connecting = this.pool.getConnection();
    let conn: PoolConnection;
    try {
      conn = await abortable(connecting, signal, this.sourceId);
    } catch (e) {
      connecting.then((c) => c.release(), () => undefined);
      throw e;
    }
    const threadId = conn.threadId;
    const work = conn.query({ sql, values: [...values], rowsAsArray: true }) as unknown as Promise<[unknown[][], FieldPacket[]]>;
    // Back to the pool only once the statement has ended; a broken connection is discarded.
    work.then(
      () => conn.release(),
      (e: unknown) => (isUnavailable(e) ? conn.destroy() : conn.release()),
    );
    return abortable(work, signal, this.sourceId, () => void this.killQuery(threadId));
  }

  /** Stop connection `threadId`'s statement. Best effort: the statement timeout is the backstop. */
  private async killQuery(threadId: number): Promise<void> {
    let killer: mysql.Connection | undefined;
    try {
      killer = await mysql.createConnection(this.connection);
      killer.on('error', () => undefined);
      await killer.query(`KILL QUERY ${Math.trunc(threadId)}`);
    } catch {
      // unreachable or refused: the statement ends at its statement timeout
    } finally {
      await killer?.end().catch(() => undefined);
    }
  }

  async query(sql: string, params: readonly SqlLiteral[], signal?: CancelSignal): Promise<FetchResult> {
    let rows: unknown[][];
    let fields: FieldPacket[];
    try {
      const values = params.map((p) => (typeof p === 'bigint' ? p.toString() : p));
      [rows, fields] = await this.run(sql, values, signal);
    } catch (e) {
      throw sourceFailure(this.sourceId, e, 'fetching rows');
    }
    return {
      columns: fields.map((f) => ({
        driver: 'mysql' as const,
        name: f.name,
        mysqlType: f.columnType ?? f.type ?? 253,
        length: f.columnLength ?? f.length ?? 0,
        decimals: f.decimals,
        unsigned: isUnsigned(f),
        binary: (f.characterSet ?? f.charsetNr) === BINARY_CHARSET,
      })),
      rows,
    };
  }

  async ping(): Promise<void> {
    try {
      await this.pool.query('SELECT 1');
    } catch (e) {
      throw sourceFailure(this.sourceId, e, 'checking health');
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
