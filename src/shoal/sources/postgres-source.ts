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
 *
 * Prepared statements: a statement with bind parameters (the direct route's plan-cache templates,
 * the catalog reads) is a named statement, parsed and planned at the server once per connection
 * and then only bound and executed — PostgreSQL's own plan cache, as JDBC uses it. A connection
 * keeps at most PREPARED_PER_CONNECTION of them: the next new one runs unnamed and the connection
 * is replaced after it. A prepared statement whose result columns changed type since (ALTER TABLE)
 * is prepared again under a new name. A server that does not keep named statements between
 * statements (a transaction-mode pooler) turns preparation off for the driver.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { SqlLiteral } from './sql-literal.js';
import { resolveSecret } from '../config/secret.js';
import { isUnavailable, sourceFailure } from './source-errors.js';
import type { FetchResult, SourceConnection, SourceDriver, SourceLimits } from './source-driver.js';
import { abortable, type CancelSignal } from './abortable.js';
import { PgClientPool } from './pg-client-pool.js';

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

/** Named statements a connection keeps at most (the server holds each one's parse tree and plans). */
export const PREPARED_PER_CONNECTION = 100;
/** Statement names a driver remembers (least recently used forgotten: such a text is named afresh). */
const NAMES_KEPT = 1_000;

const sqlState = (e: unknown): unknown => (e as { code?: unknown } | null)?.code;
/** The server re-planned a prepared statement and its result columns changed (0A000 "cached plan must not change result type"). */
const isStalePlan = (e: unknown): boolean => sqlState(e) === '0A000' && /cached plan must not change result type/.test((e as Error).message);
/** The server lost or already had a named statement: something between shoal and PostgreSQL multiplexes sessions. */
const isUnkeptStatement = (e: unknown): boolean => sqlState(e) === '26000' || sqlState(e) === '42P05';

interface Statement {
  readonly sql: string;
  readonly params: readonly SqlLiteral[];
  /** Whether it may run as a named statement. */
  readonly prepare: boolean;
}

export class PostgresSource implements SourceDriver {
  readonly dialect = 'postgresql' as const;
  readonly sourceId: string;
  private readonly pool: PgClientPool;
  /** Where the canceller connects: the pool's own server and credentials. */
  private readonly connection: pg.ClientConfig;
  /** Statement names by text; a name is never reused for another text (pg refuses that per connection). */
  private readonly names = new Map<string, string>();
  private readonly namePrefix = `shoal_${randomBytes(4).toString('hex')}_`;
  private nameSeq = 0;
  /** The names prepared on each pooled connection. */
  private readonly held = new WeakMap<pg.Client, Set<string>>();
  /** Off once the server showed it does not keep named statements (see the module comment). */
  private preparing = true;

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
    this.pool = new PgClientPool({
      client: {
        ...this.connection,
        ...(limits.statementTimeoutMs === undefined ? {} : { statement_timeout: limits.statementTimeoutMs }),
        options: '-c TimeZone=UTC -c DateStyle=ISO -c IntervalStyle=postgres -c extra_float_digits=3',
        application_name: 'shoal',
      },
      max: 5,
      idleTimeoutMs: 10_000,
      connectionTimeoutMs: 5_000,
    });
  }

  async query(sql: string, params: readonly SqlLiteral[], signal?: CancelSignal): Promise<FetchResult> {
    let result: pg.QueryArrayResult;
    const statement: Statement = { sql, params, prepare: params.length > 0 };
    try {
      result = await this.run(statement, signal).catch((e: unknown) => {
        if (!statement.prepare || signal?.aborted) throw e;
        if (isStalePlan(e)) {
          this.names.delete(sql); // prepared afresh under a new name, with the columns' new types
          return this.run(statement, signal);
        }
        if (!isUnkeptStatement(e)) throw e;
        this.preparing = false;
        return this.run({ ...statement, prepare: false }, signal);
      });
    } catch (e) {
      throw sourceFailure(this.sourceId, e, 'fetching rows');
    }
    return {
      columns: result.fields.map((f) => ({ driver: 'postgresql' as const, name: f.name, oid: f.dataTypeID, typmod: f.dataTypeModifier })),
      rows: result.rows,
    };
  }

  /** The name `sql` runs under on `client`, or undefined to run it unnamed; `replace`: the connection is at its bound. */
  private nameOn(client: pg.Client, sql: string): { readonly name?: string; readonly replace: boolean } {
    let name = this.names.get(sql);
    if (name === undefined) {
      name = `${this.namePrefix}${++this.nameSeq}`;
      if (this.names.size >= NAMES_KEPT) this.names.delete(this.names.keys().next().value!);
    } else this.names.delete(sql); // most recently used last
    this.names.set(sql, name);
    let held = this.held.get(client);
    if (held === undefined) this.held.set(client, (held = new Set()));
    if (held.has(name)) return { name, replace: false };
    if (held.size >= PREPARED_PER_CONNECTION) return { replace: true };
    held.add(name);
    return { name, replace: false };
  }

  /** One statement on one pooled connection, cancelled at the server if `signal` aborts. */
  private async run({ sql, params, prepare }: Statement, signal: CancelSignal | undefined): Promise<pg.QueryArrayResult> {
    const connecting = this.pool.acquire();
    let client: pg.Client;
    try {
      client = await abortable(connecting, signal, this.sourceId);
    } catch (e) {
      connecting.then((c) => this.pool.release(c), () => undefined);
      throw e;
    }
    const pid = (client as unknown as { processID: number | null }).processID;
    const named = prepare && this.preparing ? this.nameOn(client, sql) : { replace: false };
    const work = client.query({ text: sql, values: params.map(param), rowMode: 'array', types: typeParsers, ...(named.name === undefined ? {} : { name: named.name }) });
    // Back to the pool only once the statement has ended; a broken connection is discarded (the
    // pool also drops one that emitted 'error'), and so is one at its bound of prepared statements
    // (the server frees them with the session).
    // A connection we sent a cancel for is discarded too: the cancel travels on its own connection
    // and may land after the statement ended, on whatever the next borrower runs there.
    let cancelSent = false;
    work.then(
      () => this.pool.release(client, named.replace || cancelSent),
      (e: unknown) => this.pool.release(client, cancelSent || isUnavailable(e)),
    );
    return abortable(work, signal, this.sourceId, () => {
      if (pid === null) return;
      cancelSent = true;
      void this.cancelBackend(pid);
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
      const client = await this.pool.acquire();
      await client.query('SELECT 1').finally(() => this.pool.release(client));
    } catch (e) {
      throw sourceFailure(this.sourceId, e, 'checking health');
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
