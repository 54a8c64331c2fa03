/**
 * MySQL and MariaDB through `mysql2`: a small pool per source. DECIMAL, BIGINT, dates, times and
 * JSON come back as their exact text; small integers and floats as numbers; binary columns as
 * Buffers. The session runs in UTC.
 */
import mysql from 'mysql2/promise';
import type { FieldPacket, Pool } from 'mysql2/promise';
import type { SqlLiteral } from '../engine/engine.js';
import { resolveSecret } from '../config/secret.js';
import { sourceFailure } from './source-errors.js';
import type { FetchResult, SourceConnection, SourceDriver } from './source-driver.js';
import { abortable } from './abortable.js';

const UNSIGNED_FLAG = 32;
const BINARY_CHARSET = 63;

function isUnsigned(f: FieldPacket): boolean {
  return typeof f.flags === 'number' ? (f.flags & UNSIGNED_FLAG) !== 0 : f.flags.includes('UNSIGNED');
}

export class MysqlSource implements SourceDriver {
  readonly dialect = 'mysql' as const;
  readonly sourceId: string;
  private readonly pool: Pool;

  constructor(conn: SourceConnection, env: Readonly<Record<string, string | undefined>>) {
    this.sourceId = conn.id;
    this.pool = mysql.createPool({
      host: conn.host,
      port: conn.port !== undefined && conn.port !== 0 ? conn.port : 3306,
      database: conn.database,
      user: conn.username,
      password: conn.password === undefined ? undefined : resolveSecret(conn.password, env, `sources.${conn.id}.password`),
      connectionLimit: 5,
      connectTimeout: 5_000,
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
    this.pool.on('connection', (c) => {
      const core = c as unknown as { query(sql: string, cb: (err: unknown) => void): unknown };
      const r = core.query("SET time_zone = '+00:00'", () => undefined);
      if (r instanceof Promise) r.catch(() => undefined);
    });
  }

  async query(sql: string, params: readonly SqlLiteral[], signal?: AbortSignal): Promise<FetchResult> {
    let rows: unknown[][];
    let fields: FieldPacket[];
    try {
      const values = params.map((p) => (typeof p === 'bigint' ? p.toString() : p));
      [rows, fields] = (await abortable(this.pool.query({ sql, values, rowsAsArray: true }), signal, this.sourceId)) as unknown as [unknown[][], FieldPacket[]];
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
