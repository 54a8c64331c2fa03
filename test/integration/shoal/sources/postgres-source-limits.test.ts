/**
 * The PostgreSQL driver's limits on a real server: the session's statement_timeout stops a long
 * statement at the server (QUERY_TIMEOUT); an abort cancels the running statement at the server
 * (it leaves pg_stat_activity) and the pool serves the next query; a data error in the user's SQL
 * is a SQL_DATA_EXCEPTION naming its SQLSTATE class, never the value; a schema mismatch stays a
 * source fault.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShoalError } from '../../../../src/shoal/errors.js';
import { PostgresSource } from '../../../../src/shoal/sources/postgres-source.js';
import type { SourceConnection } from '../../../../src/shoal/sources/source-driver.js';
import { service } from '../../../support/service.js';

const postgres = service('postgres');

/** Poll `check` until it holds (each poll a real round trip; no wall-clock assertion). */
async function eventually(check: () => Promise<boolean>, what: string, tries = 300): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never: ${what}`);
}

async function failure(p: Promise<unknown>): Promise<ShoalError> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  expect(e).toBeInstanceOf(ShoalError);
  return e as ShoalError;
}

describe.skipIf(postgres.skip)('PostgreSQL source limits', () => {
  let admin: pg.Client;
  let conn: SourceConnection;
  const drivers: PostgresSource[] = [];
  const open = (statementTimeoutMs?: number): PostgresSource => {
    const d = new PostgresSource(conn, {}, statementTimeoutMs === undefined ? {} : { statementTimeoutMs });
    drivers.push(d);
    return d;
  };
  const running = async (marker: string): Promise<number> => {
    const r = await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()", [`%${marker}%`]);
    return (r.rows[0] as { n: number }).n;
  };

  beforeAll(async () => {
    const url = new URL(postgres.url as string);
    conn = {
      id: 'pg-limits',
      host: url.hostname,
      port: Number(url.port),
      database: url.pathname.slice(1),
      username: decodeURIComponent(url.username),
    };
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
  });

  afterAll(async () => {
    // never leave a sleeping statement on the shared server, even when a test failed
    await admin.query("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(20)%' AND pid <> pg_backend_pid()");
    for (const d of drivers) await d.close().catch(() => undefined);
    await admin?.end();
  });

  it('every session carries the statement timeout, and the server stops a statement at it', async () => {
    const d = open(300);
    expect((await d.query('SHOW statement_timeout', [])).rows).toEqual([['300ms']]);
    const marker = randomUUID();
    const e = await failure(d.query(`SELECT pg_sleep(20) /* ${marker} */`, []));
    expect(e.code).toBe('QUERY_TIMEOUT');
    expect(e.where).toBe('sources.pg-limits');
    expect(await running(marker)).toBe(0);
    expect((await d.query('SELECT 1', [])).rows).toEqual([[1]]);
  }, 15_000);

  it('an abort cancels the running statements at the server, and the pool serves the next query', async () => {
    const d = open();
    const marker = randomUUID();
    const controller = new AbortController();
    // as many slow statements as the pool has connections: an abandoned one would starve the next query
    const slow = Array.from({ length: 5 }, (_, i) => d.query(`SELECT pg_sleep(20) /* ${marker} ${i} */`, [], controller.signal));
    await eventually(async () => (await running(marker)) === 5, 'all five slow statements running');
    controller.abort();
    for (const p of slow) expect((await failure(p)).code).toBe('QUERY_CANCELLED');
    await eventually(async () => (await running(marker)) === 0, 'the cancelled statements left pg_stat_activity');
    expect((await d.query('SELECT 2', [])).rows).toEqual([[2]]);
  }, 15_000);

  it('an abort that carries QUERY_TIMEOUT (the request deadline) reports a timeout, not a cancel', async () => {
    const d = open();
    const marker = randomUUID();
    const controller = new AbortController();
    const slow = d.query(`SELECT pg_sleep(20) /* ${marker} */`, [], controller.signal);
    await eventually(async () => (await running(marker)) === 1, 'the slow statement running');
    controller.abort(new ShoalError('QUERY_TIMEOUT', 'deadline'));
    expect((await failure(slow)).code).toBe('QUERY_TIMEOUT');
    await eventually(async () => (await running(marker)) === 0, 'the statement left pg_stat_activity');
  }, 15_000);

  it.each([
    ["SELECT 'abc-secret'::int", '22P02', 'invalid text representation'],
    ['SELECT 1 / 0', '22012', 'division by zero'],
    ["SELECT 'x' ~ '(secret'", '2201B', 'invalid regular expression'],
    ["SELECT '2024-13-45-secret'::date", '22007', 'invalid datetime format'],
  ])('%s is a SQL_DATA_EXCEPTION naming its class, not the value', async (sql, state, name) => {
    const e = await failure(open().query(sql, []));
    expect(e.code).toBe('SQL_DATA_EXCEPTION');
    expect(e.message).toContain(state);
    expect(e.message).toContain(name);
    expect(e.message).not.toContain('secret');
    expect(e.hint ?? '').not.toContain('secret');
  });

  it('a table the source does not have stays a source fault (SOURCE_QUERY_FAILED)', async () => {
    const e = await failure(open().query('SELECT * FROM no_such_table_here', []));
    expect(e.code).toBe('SOURCE_QUERY_FAILED');
  });
});
