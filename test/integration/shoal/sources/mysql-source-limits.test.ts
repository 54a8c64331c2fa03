/**
 * The MySQL/MariaDB driver's limits on a real MariaDB: the session's max_statement_time stops a
 * long statement at the server (QUERY_TIMEOUT); an abort stops the running statement with KILL
 * QUERY (it leaves the processlist) and the pool serves the next query; a data error in the user's
 * SQL is a SQL_DATA_EXCEPTION naming its class, never the value; a schema mismatch stays a source
 * fault.
 */
import { randomUUID } from 'node:crypto';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShoalError } from '../../../../src/shoal/errors.js';
import { MysqlSource } from '../../../../src/shoal/sources/mysql-source.js';
import type { SourceConnection } from '../../../../src/shoal/sources/source-driver.js';
import { service } from '../../../support/service.js';

const mariadb = service('mariadb');

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

/**
 * A statement that runs for a long time and fails when interrupted (SLEEP and BENCHMARK just
 * return early): a count over MariaDB's sequence engine.
 */
const busy = (marker: string, i = 0): string => `SELECT count(*) AS n, '${marker}' AS m, ${i} AS i FROM seq_1_to_1000000000000`;

describe.skipIf(mariadb.skip)('MariaDB source limits', () => {
  let admin: mysql.Connection;
  let conn: SourceConnection;
  const drivers: MysqlSource[] = [];
  const open = (statementTimeoutMs?: number): MysqlSource => {
    const d = new MysqlSource(conn, {}, statementTimeoutMs === undefined ? {} : { statementTimeoutMs });
    drivers.push(d);
    return d;
  };
  const running = async (marker: string): Promise<number> => {
    const [rows] = await admin.query("SELECT count(*) AS n FROM information_schema.processlist WHERE command = 'Query' AND info LIKE ? AND id <> connection_id()", [`%${marker}%`]);
    return Number((rows as { n: number | string }[])[0]!.n);
  };

  beforeAll(async () => {
    const url = new URL(mariadb.url as string);
    conn = {
      id: 'maria-limits',
      host: url.hostname,
      port: Number(url.port),
      database: url.pathname.slice(1) || undefined,
      username: decodeURIComponent(url.username),
    };
    admin = await mysql.createConnection({ uri: mariadb.url as string });
  });

  afterAll(async () => {
    // never leave a runaway count on the shared server, even when a test failed
    const [left] = await admin.query("SELECT id FROM information_schema.processlist WHERE info LIKE '%seq_1_to_1000000000000%' AND id <> connection_id()");
    for (const r of left as { id: number }[]) await admin.query(`KILL QUERY ${Number(r.id)}`).catch(() => undefined);
    for (const d of drivers) await d.close().catch(() => undefined);
    await admin?.end();
  });

  it('every session carries max_statement_time, and the server stops a statement at it', async () => {
    const d = open(300);
    expect((await d.query('SELECT @@max_statement_time AS t', [])).rows).toEqual([[0.3]]);
    const marker = randomUUID();
    const e = await failure(d.query(busy(marker), []));
    expect(e.code).toBe('QUERY_TIMEOUT');
    expect(e.where).toBe('sources.maria-limits');
    expect(await running(marker)).toBe(0);
    expect((await d.query('SELECT 1 AS one', [])).rows).toEqual([[1]]);
  }, 15_000);

  it('an abort stops the running statements with KILL QUERY, and the pool serves the next query', async () => {
    const d = open();
    const marker = randomUUID();
    const controller = new AbortController();
    const slow = Array.from({ length: 5 }, (_, i) => d.query(busy(marker, i), [], controller.signal));
    await eventually(async () => (await running(marker)) === 5, 'all five slow statements running');
    controller.abort();
    for (const p of slow) expect((await failure(p)).code).toBe('QUERY_CANCELLED');
    await eventually(async () => (await running(marker)) === 0, 'the killed statements left the processlist');
    expect((await d.query('SELECT 2 AS two', [])).rows).toEqual([[2]]);
  }, 15_000);

  it.each([
    ["SELECT 'x' REGEXP '(secret'", '2201B', 'invalid regular expression'],
    ['SELECT CAST(18446744073709551615 AS UNSIGNED) + 1 AS v', '22003', 'numeric value out of range'],
  ])('%s is a SQL_DATA_EXCEPTION naming its class, not the value', async (sql, state, name) => {
    const e = await failure(open().query(sql, []));
    expect(e.code).toBe('SQL_DATA_EXCEPTION');
    expect(e.message).toContain(state);
    expect(e.message).toContain(name);
    expect(e.message).not.toContain('secret');
    expect(e.message).not.toContain('18446744073709551615');
  });

  it('a table the source does not have stays a source fault (SOURCE_QUERY_FAILED)', async () => {
    const e = await failure(open().query('SELECT * FROM information_schema.no_such_table_here', []));
    expect(e.code).toBe('SOURCE_QUERY_FAILED');
  });
});
