/**
 * PostgreSQL through `pg`: a small pool per source, every value fetched in PostgreSQL's text
 * form except booleans, 16/32-bit integers and floats, so bigints, numerics, dates, timestamps,
 * intervals and JSON stay exact. The session runs in UTC with ISO date style, so timestamptz text
 * carries an explicit offset.
 *
 * Limits: every session has the configured `statement_timeout`, so the server itself stops a
 * statement that runs too long. When the caller aborts (the client went away, the request deadline
 * passed), the running statement is cancelled at the server with `pg_cancel_backend` from a
 * separate connection (so a full pool cannot block the cancel), and its connection goes back to the
 * pool only once the statement has ended.
 */
import pg from 'pg';
import type { SqlLiteral } from './sql-literal.js';
import { resolveSecret } from '../config/secret.js';
import { isUnavailable, sourceFailure } from './source-errors.js';
import type { FetchResult, SourceConnection, SourceDriver, SourceLimits } from './source-driver.js';
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
  /** Where the canceller connects: the pool's own server and credentials. */
  private readonly connection: pg.ClientConfig;

  constructor(conn: SourceConnection, env: Readonly<Record<string, string | undefined>>, limits: SourceLimits = {}) {
    this.sourceId = conn.id;
    this.connection = {
      host: conn.host,
      port: conn.port !== undefined && conn.port !== 0 ? conn.port : 5432,
      database: conn.database,
      user: conn.username,
      password: conn.password === undefined ? undefined : resolveSecret(conn.password, env, `sources.${conn.id}.password`),
      connectionTimeoutMillis: 5_000,
    };
    this.pool = new pg.Pool({
      ...this.connection,
      ...(limits.statementTimeoutMs === undefined ? {} : { statement_timeout: limits.statementTimeoutMs }),
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
      result = await this.run(sql, params, signal);
    } catch (e) {
      throw sourceFailure(this.sourceId, e, 'fetching rows');
    }
    return {
      columns: result.fields.map((f) => ({ driver: 'postgresql' as const, name: f.name, oid: f.dataTypeID, typmod: f.dataTypeModifier })),
      rows: result.rows,
    };
  }

  /** One statement on one pooled connection, cancelled at the server if `signal` aborts. */
  private async run(sql: string, params: readonly SqlLiteral[], signal: AbortSignal | undefined): Promise<pg.QueryArrayResult> {
    const connecting = this.pool.connect();
    let client: pg.PoolClient;
    try {
      client = await abortable(connecting, signal, this.sourceId);
    } catch (e) {
      connecting.then((c) => c.release(), () => undefined);
      throw e;
    }
    const pid = (client as unknown as { processID: number | null }).processID;
    // While checked out the client has no pool listener; a connection dropped mid-statement emits
    // 'error' besides rejecting the statement, and that must not crash the process.
    let dropped: Error | undefined;
    const onDrop = (e: Error) => (dropped = e);
    client.on('error', onDrop);
    const work = client.query({ text: sql, values: params.map(param), rowMode: 'array', types: typeParsers });
    // Back to the pool only once the statement has ended; a broken connection is discarded.
    work.then(
      () => {
        client.removeListener('error', onDrop);
        client.release(dropped);
      },
      (e: unknown) => {
        client.removeListener('error', onDrop);
        client.release(dropped ?? (isUnavailable(e) ? (e as Error) : undefined));
      },
    );
    return abortable(work, signal, this.sourceId, () => {
      if (pid !== null) void this.cancelBackend(pid);
    });
  }

  /** Ask the server to cancel backend `pid`'s statement. Best effort: the statement timeout is the backstop. */
  private async cancelBackend(pid: number): Promise<void> {
    const canceller = new pg.Client({ ...this.connection, application_name: 'shoal-cancel' });
    canceller.on('error', () => undefined);
    try {
      await canceller.connect();
      await canceller.query('SELECT pg_cancel_backend($1)', [pid]);
    } catch {
      // unreachable or refused: the statement ends at its statement_timeout
    } finally {
      await canceller.end().catch(() => undefined);
    }
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
