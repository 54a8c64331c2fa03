/**
 * core/sql's PostgreSQL client against a real server (it lives here because the registry is its first
 * user; the SQLite twin is test/core/sql/sqlite-client.test.ts).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlClient } from '../../../../src/core/sql/open-sql-client.js';
import { canListen, type SqlClient } from '../../../../src/core/sql/sql-client.js';
import { service } from '../../../support/service.js';

const postgres = service('postgres');

describe.skipIf(postgres.skip)('SqlClient over PostgreSQL', () => {
  const database = `shoal_sql_${process.pid}_${Date.now().toString(36)}`;
  let admin: pg.Client;
  let client: SqlClient;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    const u = new URL(postgres.url!);
    u.pathname = `/${database}`;
    client = await openSqlClient(u.toString().replace(/^postgresql:/, 'postgres:'));
    await client.exec('CREATE TABLE t (id BIGINT PRIMARY KEY, name TEXT, flag BOOLEAN); CREATE TABLE u (x INT)');
  });

  afterAll(async () => {
    await client?.close();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  it('binds ? parameters as $n, leaves ? in literals alone, returns int8 as numbers', async () => {
    expect(client.dialect).toBe('postgres');
    expect(await client.run('INSERT INTO t (id, name, flag) VALUES (?, ?, ?), (?, ?, ?)', [1, 'one?', true, 2, null, false])).toEqual({ rowCount: 2 });
    expect(await client.query("SELECT id, name, flag, '?' AS q FROM t WHERE id >= ? ORDER BY id", [1])).toEqual([
      { id: 1, name: 'one?', flag: true, q: '?' },
      { id: 2, name: null, flag: false, q: '?' },
    ]);
    expect(await client.query('SELECT count(*) AS n FROM t')).toEqual([{ n: 2 }]);
    expect(await client.query('SELECT 9007199254740993::bigint AS big')).toEqual([{ big: '9007199254740993' }]);
  });

  it('commits a transaction that resolves and rolls back one that throws', async () => {
    await client.transaction(async (tx) => {
      await tx.run('INSERT INTO u VALUES (?)', [1]);
    });
    await expect(
      client.transaction(async (tx) => {
        await tx.run('INSERT INTO u VALUES (?)', [2]);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await client.query('SELECT x FROM u ORDER BY x')).toEqual([{ x: 1 }]);
  });

  it('a backend terminated mid-transaction rejects the transaction, without an uncaught error, and the pool recovers', async () => {
    // Before the fix the checked-out client had no 'error' listener: the drop crashed the process
    // (vitest reports it as an unhandled error of this file).
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      await expect(
        client.transaction(async (tx) => {
          const [row] = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
          await admin.query('SELECT pg_terminate_backend($1)', [row!.pid]);
          // the drop is noticed while the transaction is idle between statements
          await new Promise((r) => setTimeout(r, 200));
          await tx.query('SELECT 1');
        }),
      ).rejects.toThrow();
      await new Promise((r) => setTimeout(r, 100));
      expect(uncaught).toEqual([]);
      expect(await client.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });

  it('a read-only transaction refuses writes', async () => {
    await expect(client.transaction((tx) => tx.run('INSERT INTO u VALUES (3)'), { readOnly: true })).rejects.toThrow(/read-only/);
  });

  it('LISTEN delivers only committed notifications, and stops when unsubscribed', async () => {
    expect(canListen(client)).toBe(true);
    if (!canListen(client)) return;
    const got: string[] = [];
    let first!: () => void;
    const arrived = new Promise<void>((r) => (first = r));
    const stop = await client.listen('chan', (p) => {
      got.push(p);
      first();
    });
    await client
      .transaction(async (tx) => {
        await tx.query('SELECT pg_notify(?, ?)', ['chan', 'rolled-back']);
        throw new Error('abort');
      })
      .catch(() => undefined);
    await client.transaction((tx) => tx.query('SELECT pg_notify(?, ?)', ['chan', 'committed']));
    await arrived;
    expect(got).toEqual(['committed']);
    await stop();
  });
});

describe.skipIf(postgres.skip)('LISTEN survives a dropped connection', () => {
  it('re-listens after its backend is terminated, signals the gap, and receives later notifications', async () => {
    const client = await openSqlClient(postgres.url!);
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    try {
      if (!canListen(client)) throw new Error('a PostgreSQL client can listen');
      const channel = `chan_${process.pid}`;
      const got: string[] = [];
      const waiters: [string, () => void][] = [];
      const waitFor = (p: string) => new Promise<void>((r) => waiters.push([p, r]));
      const stop = await client.listen(channel, (p) => {
        got.push(p);
        for (const [want, r] of waiters) if (want === p) r();
      });
      const gap = waitFor('');
      const killed = await admin.query(`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE query = $1`, [`LISTEN "${channel}"`]);
      expect(killed.rows).toEqual([{ ok: true }]);
      await gap;
      const later = waitFor('after');
      await client.query('SELECT pg_notify(?, ?)', [channel, 'after']);
      await later;
      expect(got).toEqual(['', 'after']);
      await stop();
    } finally {
      await admin.end();
      await client.close();
    }
  });
});
