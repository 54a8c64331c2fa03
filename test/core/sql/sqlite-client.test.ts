import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlClient } from '../../../src/core/sql/open-sql-client.js';
import type { SqlClient } from '../../../src/core/sql/sql-client.js';

describe('SqlClient over SQLite', () => {
  let dir: string;
  let a: SqlClient;
  let b: SqlClient;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-sql-'));
    a = await openSqlClient('sqlite:///nested/db.sqlite', { baseDir: dir });
    b = await openSqlClient(`sqlite:///${join(dir, 'nested/db.sqlite')}`);
    await a.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, flag INTEGER); CREATE TABLE u (x INTEGER)');
  });

  afterEach(async () => {
    await a.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs statements with ? parameters; binds booleans as 1/0', async () => {
    expect(await a.run('INSERT INTO t (id, name, flag) VALUES (?, ?, ?), (?, ?, ?)', [1, 'one', true, 2, null, false])).toEqual({ rowCount: 2 });
    expect(await b.query('SELECT id, name, flag FROM t ORDER BY id')).toEqual([
      { id: 1, name: 'one', flag: 1 },
      { id: 2, name: null, flag: 0 },
    ]);
    expect(await a.query('INSERT INTO u VALUES (1)')).toEqual([]);
  });

  it('commits a transaction that resolves and rolls back one that throws', async () => {
    await a.transaction(async (tx) => {
      await tx.run('INSERT INTO t (id, name) VALUES (?, ?)', [1, 'kept']);
    });
    await expect(
      a.transaction(async (tx) => {
        await tx.run('INSERT INTO t (id, name) VALUES (?, ?)', [2, 'lost']);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await b.query('SELECT name FROM t')).toEqual([{ name: 'kept' }]);
  });

  it('two handles on one file: a writer waits for the other handle’s open transaction instead of deadlocking', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const first = a.transaction(async (tx) => {
      await tx.run('INSERT INTO t (id, name) VALUES (1, ?)', ['a']);
      entered();
      await gate;
      await tx.run('UPDATE t SET name = ? WHERE id = 1', ['a2']);
    });
    await inside;
    const second = b.transaction(async (tx) => {
      const rows = await tx.query<{ name: string }>('SELECT name FROM t WHERE id = 1');
      await tx.run('INSERT INTO t (id, name) VALUES (2, ?)', [`saw ${rows[0]?.name}`]);
    });
    release();
    await Promise.all([first, second]);
    // the second transaction started only after the first committed, so it saw its final value
    expect(await a.query('SELECT id, name FROM t ORDER BY id')).toEqual([
      { id: 1, name: 'a2' },
      { id: 2, name: 'saw a2' },
    ]);
  });

  it('calls on one handle queue behind its open transaction', async () => {
    const order: string[] = [];
    const tx = a.transaction(async (t) => {
      await t.run('INSERT INTO u VALUES (1)');
      await new Promise((r) => setImmediate(r));
      order.push('tx');
    });
    const q = a.query('SELECT count(*) AS n FROM u').then((r) => {
      order.push('query');
      return r;
    });
    await tx;
    expect(await q).toEqual([{ n: 1 }]);
    expect(order).toEqual(['tx', 'query']);
  });

  it('a closed handle refuses work with a coded error', async () => {
    await a.close();
    await expect(a.query('SELECT 1')).rejects.toMatchObject({ code: 'SQL_CLOSED' });
  });
});
