/**
 * MariaDB (the MySQL connector) landed into the DuckDB engine through `mysql2`, against a real
 * server: type fidelity, pushdown that really narrows what is fetched, and a join with PostgreSQL-free
 * local data (a CSV file).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import fc from 'fast-check';
import { service } from '../../../support/service.js';
import { DuckDbEngine } from '../../../../src/shoal/engine/duckdb/duckdb-engine.js';
import { catalogEntryFor, type CatalogEntry } from '../../../../src/shoal/engine/catalog-entry.js';
import type { Cell, LandingReport, RowBatch } from '../../../../src/shoal/engine/engine.js';
import type { ShoalError } from '../../../../src/shoal/errors.js';
import { checkPushdownLaw } from '../../../shoal/engine/duckdb/pushdown-law.js';

const mariadb = service('mariadb');
const DB = `shoal_engine_it_${process.pid}`;
const ROWS = 3000;

async function collect(stream: AsyncIterable<RowBatch>): Promise<{ columns: { name: string; type: string }[]; rows: Cell[][] }> {
  const out: { columns: { name: string; type: string }[]; rows: Cell[][] } = { columns: [], rows: [] };
  for await (const b of stream) {
    out.columns = [...b.columns];
    out.rows.push(...b.rows.map((r) => [...r]));
  }
  return out;
}

describe.skipIf(mariadb.skip)('MariaDB landed into DuckDB', () => {
  let conn: mysql.Connection;
  let engine: DuckDbEngine;
  let dir: string;
  let entries: CatalogEntry[];
  const ITEMS = { sourceId: 'shop-maria', schema: 'default', table: 'items' };

  beforeAll(async () => {
    const url = new URL(mariadb.url as string);
    conn = await mysql.createConnection({ uri: mariadb.url as string, multipleStatements: true, timezone: 'Z' });
    // TIMESTAMP values are stored in UTC and read in the session zone; write them in UTC as shoal reads.
    await conn.query(`DROP DATABASE IF EXISTS ${DB}; CREATE DATABASE ${DB}; USE ${DB}; SET time_zone = '+00:00'`);
    await conn.query(`CREATE TABLE items (
      id INT PRIMARY KEY, category_id INT, name VARCHAR(50), price DECIMAL(10,2), big BIGINT UNSIGNED, signed_big BIGINT,
      active TINYINT(1), added DATE, seen DATETIME(6), stamped TIMESTAMP NULL, doc JSON, note TEXT, ratio DOUBLE,
      kind ENUM('a','b'), raw VARBINARY(8), tiny TINYINT, yr YEAR)`);
    const values: unknown[][] = [];
    for (let i = 1; i <= ROWS; i++) {
      values.push([i, 1 + (i % 3), `item-${i}`, (i * 0.25).toFixed(2), String(BigInt(i) * 1000000000000n), -i, i % 2, '2024-02-29',
        `2024-02-29 10:11:12.${String(i % 1000000).padStart(6, '0')}`, '2024-03-01 00:00:00', JSON.stringify({ i }), i % 7 === 0 ? null : `n${i}`,
        i / 16, i % 2 === 0 ? 'a' : 'b', Buffer.from([i % 256, 0]), i % 100, 2000 + (i % 20)]);
    }
    await conn.query('INSERT INTO items VALUES ?', [values]);
    await conn.query(`INSERT INTO items (id, big, signed_big, price, name, doc) VALUES
      (0, 18446744073709551615, -9223372036854775808, -99999999.99, 'quote '' and "dq" and ünï', '{"nested":{"a":[1,null,true]}}')`);
    // Names that differ only in case or trailing spaces: MariaDB's default collation equates them.
    await conn.query(`INSERT INTO items (id, name, price) VALUES (10001, 'Bolt', 1), (10002, 'bolt', 2), (10003, 'BOLT', 3), (10004, 'nut ', 4), (10005, 'Nut', 5)`);
    dir = mkdtempSync(join(tmpdir(), 'shoal-maria-it-'));
    writeFileSync(join(dir, 'categories.csv'), 'category_id,category\n1,bolts\n2,nuts\n3,washers\n');
    entries = [
      catalogEntryFor(
        { source_id: 'shop-maria', domain_id: 'shop', table: 'items' },
        { id: 'shop-maria', type: 'mariadb', host: url.hostname, port: Number(url.port), database: DB, username: decodeURIComponent(url.username) },
      ),
      catalogEntryFor({ source_id: 'ref-csv', domain_id: 'ref', table: 'categories' }, { id: 'ref-csv', type: 'csv', path: dir }),
    ];
    engine = await DuckDbEngine.create();
    expect((await engine.reconcile(entries)).failed).toEqual([]);
  });

  afterAll(async () => {
    await engine?.close();
    await conn?.query(`DROP DATABASE IF EXISTS ${DB}`).catch(() => undefined);
    await conn?.end();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps MariaDB types and values exact', async () => {
    const r = await collect(engine.execute('SELECT * FROM "shop_maria"."default"."items" WHERE id IN (0, 5) ORDER BY id'));
    expect(r.columns).toEqual([
      { name: 'id', type: 'INTEGER' },
      { name: 'category_id', type: 'INTEGER' },
      { name: 'name', type: 'VARCHAR' },
      { name: 'price', type: 'DECIMAL(10,2)' },
      { name: 'big', type: 'UBIGINT' },
      { name: 'signed_big', type: 'BIGINT' },
      { name: 'active', type: 'BOOLEAN' },
      { name: 'added', type: 'DATE' },
      { name: 'seen', type: 'TIMESTAMP' },
      { name: 'stamped', type: 'TIMESTAMP' },
      // MariaDB stores JSON as LONGTEXT: it arrives as text.
      { name: 'doc', type: 'VARCHAR' },
      { name: 'note', type: 'VARCHAR' },
      { name: 'ratio', type: 'DOUBLE' },
      { name: 'kind', type: 'VARCHAR' },
      { name: 'raw', type: 'BLOB' },
      { name: 'tiny', type: 'TINYINT' },
      { name: 'yr', type: 'SMALLINT' },
    ]);
    expect(r.rows).toEqual([
      [0, null, 'quote \' and "dq" and ünï', '-99999999.99', '18446744073709551615', '-9223372036854775808', null, null, null, null,
        '{"nested":{"a":[1,null,true]}}', null, null, null, null, null, null],
      [5, 3, 'item-5', '1.25', '5000000000000', '-5', true, '2024-02-29', '2024-02-29 10:11:12.000005', '2024-03-01 00:00:00', '{"i":5}', 'n5', 0.3125, 'b',
        '\\x05\\x00', 5, 2005],
    ]);
  });

  it('law: landing is type-faithful: every value reads back exactly as MariaDB prints it', async () => {
    await conn.query(`CREATE TABLE fidelity (id INT PRIMARY KEY, b BIGINT, ub BIGINT UNSIGNED, d DECIMAL(20,6), day DATE, at DATETIME(6), t VARCHAR(64), f TINYINT(1))
      CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    const fid = catalogEntryFor(
      { source_id: 'shop-maria', domain_id: 'shop', table: 'fidelity' },
      { id: 'shop-maria', type: 'mariadb', host: entries[0]?.source.host, port: entries[0]?.source.port, database: DB, username: entries[0]?.source.username },
    );
    await engine.reconcile([...entries, fid]);
    const row = fc.record({
      b: fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { nil: null }),
      ub: fc.option(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), { nil: null }),
      d: fc.option(fc.tuple(fc.bigInt({ min: -(10n ** 14n) + 1n, max: 10n ** 14n - 1n }), fc.nat({ max: 999_999 })).map(([i, f]) => `${i}.${String(f).padStart(6, '0')}`), { nil: null }),
      day: fc.option(fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2199-12-31T00:00:00Z'), noInvalidDate: true }).map((x) => x.toISOString().slice(0, 10)), { nil: null }),
      at: fc.option(fc.tuple(fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }), fc.nat({ max: 999 })).map(([x, us]) => `${x.toISOString().slice(0, 10)} ${x.toISOString().slice(11, 23)}${String(us).padStart(3, '0')}`), { nil: null }),
      t: fc.option(fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => s.replace(/\0/g, '')), { nil: null }),
      f: fc.option(fc.boolean(), { nil: null }),
    });
    const trimFraction = (ts: unknown) => (typeof ts === 'string' ? ts.replace(/(\.\d*[1-9])0+$/, '$1').replace(/\.0+$/, '') : ts);
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 6 }), async (rows) => {
          await conn.query(`TRUNCATE ${DB}.fidelity`);
          for (const [i, x] of rows.entries()) {
            await conn.query(`INSERT INTO ${DB}.fidelity VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, [i, x.b?.toString() ?? null, x.ub?.toString() ?? null, x.d, x.day, x.at, x.t, x.f === null ? null : Number(x.f)]);
          }
          const landed = await collect(engine.execute('SELECT * FROM shop.fidelity ORDER BY id'));
          const [printed] = (await conn.query({
            sql: `SELECT id, CAST(b AS CHAR), CAST(ub AS CHAR), CAST(d AS CHAR), CAST(day AS CHAR), CAST(at AS CHAR), t, f FROM ${DB}.fidelity ORDER BY id`,
            rowsAsArray: true,
          })) as unknown as [unknown[][]];
          expect(landed.rows.map((r) => [r[0], r[1], r[2], r[3], r[4], trimFraction(r[5]), r[6], r[7]])).toEqual(
            printed.map((p) => [p[0], p[1], p[2], p[3], p[4], trimFraction(p[5]), p[6], p[7] === null ? null : Number(p[7]) === 1]),
          );
        }),
        { numRuns: 25 },
      );
    } finally {
      await engine.reconcile(entries);
    }
  });

  it('pushes projection and predicates into MariaDB: only matching rows are fetched', async () => {
    const reports: LandingReport[] = [];
    const r = await collect(
      engine.execute("SELECT count(*)::INTEGER, sum(price)::VARCHAR FROM shop.items WHERE category_id = 2 AND id BETWEEN 100 AND 399", {
        pushdown: [{
          table: ITEMS,
          columns: ['category_id', 'price', 'id'],
          predicates: [{ column: 'category_id', op: '=', value: 2 }, { column: 'id', op: '>=', value: 100 }, { column: 'id', op: '<=', value: 399 }],
        }],
        onLanding: (x) => reports.push(x),
      }),
    );
    const [[expected]] = (await conn.query({ sql: `SELECT count(*) AS n, CAST(sum(price) AS CHAR) AS s FROM ${DB}.items WHERE category_id = 2 AND id BETWEEN 100 AND 399`, rowsAsArray: true })) as unknown as [[[number, string]]];
    expect(r.rows).toEqual([[Number(expected[0]), expected[1]]]);
    expect(reports[0]?.sourceSql).toBe(`SELECT \`category_id\`, \`price\`, \`id\` FROM \`${DB}\`.\`items\` WHERE \`category_id\` = ? AND \`id\` >= ? AND \`id\` <= ?`);
    expect(reports[0]?.rowsFetched).toBe(Number(expected[0]));
    expect(reports[0]?.rowsFetched).toBeLessThan(ROWS / 10);
  });

  it('answers a join of MariaDB with a CSV file correctly', async () => {
    const r = await collect(
      engine.execute(`SELECT c.category, count(*)::INTEGER FROM shop.items i JOIN ref.categories c ON c.category_id = i.category_id
        WHERE i.active GROUP BY 1 ORDER BY 1`),
    );
    const [rows] = (await conn.query({ sql: `SELECT category_id, count(*) FROM ${DB}.items WHERE active = 1 GROUP BY 1 ORDER BY 1`, rowsAsArray: true })) as unknown as [[number, number][]];
    const names: Record<number, string> = { 1: 'bolts', 2: 'nuts', 3: 'washers' };
    expect(r.rows).toEqual(rows.map(([c, n]) => [names[c], Number(n)]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))));
  });

  it('the source collation would drop rows for <> and ranges on text: those predicates stay in the engine', async () => {
    const [direct] = (await conn.query({ sql: `SELECT id FROM ${DB}.items WHERE name <> 'bolt' AND id > 10000 ORDER BY id`, rowsAsArray: true })) as unknown as [[number][]];
    expect(direct.map((r) => r[0])).toEqual([10004, 10005]);
    const reports: LandingReport[] = [];
    const r = await collect(
      engine.execute("SELECT id FROM shop.items WHERE name <> 'bolt' AND id > 10000 ORDER BY id", {
        pushdown: [{ table: ITEMS, columns: ['id', 'name'], predicates: [{ column: 'name', op: '<>', value: 'bolt' }, { column: 'id', op: '>', value: 10000 }] }],
        onLanding: (x) => reports.push(x),
      }),
    );
    expect(r.rows).toEqual([[10001], [10003], [10004], [10005]]);
    expect(reports[0]?.sourceSql).toBe(`SELECT \`id\`, \`name\` FROM \`${DB}\`.\`items\` WHERE \`id\` > ?`);
  });

  it('law: pushing predicates and a projection into MariaDB never changes an answer', async () => {
    await checkPushdownLaw(
      engine,
      {
        ref: ITEMS,
        name: 'shop.items',
        key: 'id',
        columns: [
          { name: 'id', values: [0, 5, 399, 2999.5, 10002] },
          // Text is where the source's collation and the engine's differ: weigh it up.
          ...Array.from({ length: 3 }, () => ({ name: 'name', values: ['bolt', 'BOLT', 'Bolt', 'nut', 'Nut ', 'item-5', 'ITEM-5', ''], patterns: ['b%', 'B%', 'item-1%', '%t'] })),
          { name: 'price', values: [0.25, 1, 2.5, 750] },
          { name: 'category_id', values: [1, 2, 3] },
        ],
      },
      80,
    );
  });

  it('a stopped MariaDB source is SOURCE_UNAVAILABLE; health reports it; the CSV still answers', async () => {
    const down = catalogEntryFor({ source_id: 'old-maria', domain_id: 'old', table: 'items' }, { id: 'old-maria', type: 'mysql', host: '127.0.0.1', port: 1, database: 'x', username: 'x' });
    await engine.reconcile([...entries, down]);
    try {
      let err: unknown;
      try {
        await collect(engine.execute('SELECT * FROM old.items'));
      } catch (e) {
        err = e;
      }
      expect((err as ShoalError).code).toBe('SOURCE_UNAVAILABLE');
      expect((err as ShoalError).message).toContain('"old-maria"');
      expect(await engine.health('old-maria')).toMatchObject({ ok: false, code: 'SOURCE_UNAVAILABLE' });
      expect(await engine.health('shop-maria')).toEqual({ sourceId: 'shop-maria', ok: true });
      expect((await collect(engine.execute('SELECT count(*)::INTEGER FROM ref.categories'))).rows).toEqual([[3]]);
    } finally {
      await engine.reconcile(entries);
    }
  });
});
