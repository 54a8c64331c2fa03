/**
 * PostgreSQL through `pg`: a small pool per source, every value fetched in PostgreSQL's text
 * form except booleans, 16/32-bit integers and floats, so bigints, numerics, dates, timestamps,
 * intervals and JSON stay exact. The session runs in UTC with ISO date style, so timestamptz text
 * carries an explicit offset.
 */
import pg from 'pg';
import type { SqlLiteral } from '../engine/engine.js';
import { resolveSecret } from '../config/secret.js';
import { sourceFailure } from './source-errors.js';
import type { FetchResult, SourceConnection, SourceDriver } from './source-driver.js';
import { abortable } from './abortable.js';

const BOOL = 16;
const INT2 = 21;
const INT4 = 23;
const FLOAT4 = 700;
const FLOAT8 = 701;

const identity = (v: string): string => v;
const toNumber = (v: string): number => Number(v);

/** Parsers for `pg`: native JS values only where they are exact. */
const typeParsers = {
  getTypeParser(oid: number): (v: string) => unknown {
    if (oid === BOOL) return (v: string) => v === 't';
    if (oid === INT2 || oid === INT4) return toNumber;
    if (oid === FLOAT4 || oid === FLOAT8) return toNumber;
    return identity;
  },
};

function param(v: SqlLiteral): unknown {
  return typeof v === 'bigint' ? v.toString() : v;
}

export class PostgresSource implements SourceDriver {
  readonly dialect = 'postgresql' as const;
  readonly sourceId: string;
  private readonly pool: pg.Pool;

  constructor(conn: SourceConnection, env: Readonly<Record<string, string | undefined>>) {
    this.sourceId = conn.id;
    this.pool = new pg.Pool({
      host: conn.host,
      port: conn.port !== undefined && conn.port !== 0 ? conn.port : 5432,
      database: conn.database,
      user: conn.username,
      password: conn.password === undefined ? undefined : resolveSecret(conn.password, env, `sources.${conn.id}.password`),
      max: 5,
      idleTimeoutMillis: 10_000,
      connectionTimeoutMillis: 5_000,
      options: '-c TimeZone=UTC -c DateStyle=ISO -c IntervalStyle=postgres -c extra_float_digits=3',
      application_name: 'shoal',
    });
    // An idle client that loses its server must not crash the process; the next query reports it.
    this.pool.on('error', () => undefined);
  }

  async query(sql: string, params: readonly SqlLiteral[], signal?: AbortSignal): Promise<FetchResult> {
    let result: pg.QueryArrayResult;
    try {
      result = await abortable(this.pool.query({ text: sql, values: params.map(param), rowMode: 'array', types: typeParsers }), signal, this.sourceId);
    } catch (e) {
      throw sourceFailure(this.sourceId, e, 'fetching rows');
    }
    return {
      columns: result.fields.map((f) => ({ driver: 'postgresql' as const, name: f.name, oid: f.dataTypeID, typmod: f.dataTypeModifier })),
      rows: result.rows,
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
