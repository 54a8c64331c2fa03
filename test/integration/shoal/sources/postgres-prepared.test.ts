/**
 * The PostgreSQL driver prepares a parameterised statement once per connection (a named
 * statement: later runs skip parse and plan at the server), and stays correct when the prepared
 * form goes stale: a column whose type changed answers with its new type, a server that lost its
 * named statements gets unnamed ones, and a connection's prepared statements stay bounded.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresSource, PREPARED_PER_CONNECTION } from '../../../../src/shoal/sources/postgres-source.js';
import type { SourceConnection } from '../../../../src/shoal/sources/source-driver.js';
import { service } from '../../../support/service.js';

const postgres = service('postgres');

describe.skipIf(postgres.skip)('PostgreSQL source: prepared statements', () => {
  let admin: pg.Client;
  let conn: SourceConnection;
  let db: string;
  const drivers: PostgresSource[] = [];
  const open = (): PostgresSource => {
    const d = new PostgresSource(conn, {});
    drivers.push(d);
    return d;
  };
  /** The statements prepared in the driver's session (one query at a time: the pool hands back the same connection). */
  const prepared = async (d: PostgresSource): Promise<string[]> =>
    (await d.query('SELECT statement FROM pg_prepared_statements ORDER BY prepare_time', [])).rows.map((r) => String(r[0]));

  beforeAll(async () => {
    const url = new URL(postgres.url as string);
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    db = `prepared_${process.pid}_${Date.now()}`;
    await admin.query(`CREATE DATABASE ${db}`);
    conn = { id: 'pg-prepared', host: url.hostname, port: Number(url.port), database: db, username: decodeURIComponent(url.username) };
    const src = new pg.Client({ connectionString: `postgresql://${url.username}@${url.host}/${db}` });
    await src.connect();
    await src.query('CREATE TABLE t AS SELECT i AS id, i * 10 AS v FROM generate_series(1, 5) i');
    await src.end();
  });

  afterAll(async () => {
    for (const d of drivers) await d.close().catch(() => undefined);
    await admin?.query(`DROP DATABASE IF EXISTS ${db}`).catch(() => undefined);
    await admin?.end();
  });

  it('a parameterised statement is prepared once and reused; a text without parameters is not prepared', async () => {
    const d = open();
    const text = 'SELECT v FROM t WHERE id = $1::int4';
    expect((await d.query(text, [2])).rows).toEqual([[20]]);
    expect((await d.query(text, [3])).rows).toEqual([[30]]);
    expect((await d.query('SELECT v FROM t WHERE id = 4', [])).rows).toEqual([[40]]);
    expect(await prepared(d)).toEqual([text]);
  });

  it('a column whose type changed after its statement was prepared answers with the new type', async () => {
    const d = open();
    const text = 'SELECT id, v FROM t WHERE id = $1::int4';
    expect((await d.query(text, [1])).rows).toEqual([[1, 10]]);
    const url = new URL(postgres.url as string);
    const src = new pg.Client({ connectionString: `postgresql://${url.username}@${url.host}/${db}` });
    await src.connect();
    try {
      await src.query('ALTER TABLE t ALTER COLUMN v TYPE text');
      const r = await d.query(text, [1]);
      expect(r.rows).toEqual([[1, '10']]);
      expect(r.columns.map((c) => (c.driver === 'postgresql' ? c.oid : 0))).toEqual([23, 25]);
    } finally {
      await src.query('ALTER TABLE t ALTER COLUMN v TYPE int4 USING v::int4');
      await src.end();
    }
  });

  it('a server that lost a prepared statement (a session-multiplexing pooler) gets every statement unnamed from then on', async () => {
    const d = open();
    const text = 'SELECT v FROM t WHERE id = $1::int4';
    expect((await d.query(text, [2])).rows).toEqual([[20]]);
    // what a transaction-mode pooler does: the next statement lands in a session without it
    await d.query('DEALLOCATE ALL', []);
    expect((await d.query(text, [3])).rows).toEqual([[30]]);
    expect((await d.query('SELECT v FROM t WHERE id = $1::int4 AND v > $2::int4', [4, 0])).rows).toEqual([[40]]);
    expect(await prepared(d)).toEqual([]);
  });

  it(`a connection holds at most ${PREPARED_PER_CONNECTION} prepared statements`, async () => {
    const d = open();
    for (let i = 0; i <= PREPARED_PER_CONNECTION; i++) {
      expect((await d.query(`SELECT v + ${i} FROM t WHERE id = $1::int4`, [1])).rows).toEqual([[10 + i]]);
    }
    // the last text found its connection full: it ran unnamed, and the connection was replaced
    const last = `SELECT v + ${PREPARED_PER_CONNECTION} FROM t WHERE id = $1::int4`;
    expect((await d.query(last, [1])).rows).toEqual([[10 + PREPARED_PER_CONNECTION]]);
    const held = await prepared(d);
    expect(held.length).toBeGreaterThan(0);
    expect(held.length).toBeLessThanOrEqual(PREPARED_PER_CONNECTION);
    expect(held).toContain(last);
  });
  it('a connection a cancel was sent for is never lent again: a late cancel cannot stop the next borrower', async () => {
    const d = open();
    const pidOf = async (): Promise<number> => Number((await d.query('SELECT pg_backend_pid()', [])).rows[0]![0]);
    const first = await pidOf(); // the pool lends its most recently used connection: this one, next
    const controller = new AbortController();
    const slow = d.query('SELECT pg_sleep(30)', [], controller.signal);
    // abort only once the sleep runs on that backend
    for (;;) {
      const { rows } = await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND query LIKE '%pg_sleep(30)%' AND state = 'active'", [first]);
      if (rows.length > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    controller.abort();
    await expect(slow).rejects.toBeDefined();
    // wait until the server has ended the statement (the cancel landed), so the driver has settled it
    for (;;) {
      const { rows } = await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active'", [first]);
      if (rows.length === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(await pidOf()).not.toBe(first);
  });
});
