import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renameSync } from 'node:fs';
import Database from 'better-sqlite3';
import { DuckDbEngine } from '../../../../src/shoal/engine/duckdb/duckdb-engine.js';
import type { CatalogEntry } from '../../../../src/shoal/engine/catalog-entry.js';
import type { LandingReport } from '../../../../src/shoal/engine/engine.js';
import { ShoalError } from '../../../../src/shoal/errors.js';
import { collect, entry, makeFiles, type FileFixture } from './engine-fixtures.js';
import { checkPushdownLaw } from './pushdown-law.js';

let files: FileFixture;
let engine: DuckDbEngine;
let entries: CatalogEntry[];
const ITEMS = { sourceId: 'shop-db', schema: 'main', table: 'items' };

beforeAll(async () => {
  files = await makeFiles();
  entries = [
    entry({ id: 'shop-db', type: 'sqlite', path: files.sqlite }, { domain_id: 'shop', schema: 'main', table: 'items' }),
    entry({ id: 'segments-csv', type: 'csv', path: files.csv }, { domain_id: 'sales', table: 'customer_segments' }),
  ];
  engine = await DuckDbEngine.create();
  const report = await engine.reconcile(entries);
  expect(report.failed).toEqual([]);
});
afterAll(async () => {
  await engine?.close();
  files?.cleanup();
});

describe('SQLite files landed through better-sqlite3', () => {
  it('lands declared types faithfully: bigint beyond 2^53, decimals, booleans, dates, timestamps, JSON, blobs, NULL', async () => {
    const r = await collect(engine.execute('SELECT * FROM shop.items WHERE id <= 3 ORDER BY id'));
    expect(r.columns).toEqual([
      { name: 'id', type: 'BIGINT' },
      { name: 'name', type: 'VARCHAR' },
      { name: 'price', type: 'DECIMAL(10,2)' },
      { name: 'big', type: 'BIGINT' },
      { name: 'ratio', type: 'DOUBLE' },
      { name: 'active', type: 'BOOLEAN' },
      { name: 'added', type: 'DATE' },
      { name: 'seen', type: 'TIMESTAMP' },
      { name: 'doc', type: 'JSON' },
      { name: 'raw', type: 'BLOB' },
    ]);
    expect(r.rows).toEqual([
      ['1', 'bolt', '1.25', '9007199254740993', 0.5, true, '2024-01-31', '2024-01-31 08:00:00', '{"a":1}', '\\x00\\xFF'],
      ['2', 'nut', '0.10', '-5', 0.001, false, '2023-12-01', '2023-12-01 23:59:59.5', '[1]', null],
      ['3', null, null, null, null, null, null, null, null, null],
    ]);
  });

  it('pushes projection and predicates into the SQLite statement, so only matching rows are fetched', async () => {
    const reports: LandingReport[] = [];
    const r = await collect(
      engine.execute('SELECT id, name FROM "shop_db"."main"."items" WHERE id > 190 AND active ORDER BY id', {
        pushdown: [{ table: ITEMS, columns: ['id', 'name', 'active'], predicates: [{ column: 'id', op: '>', value: 190 }] }],
        onLanding: (x) => reports.push(x),
      }),
    );
    expect(r.rows).toEqual([['191', 'item-191'], ['193', 'item-193'], ['195', 'item-195'], ['197', 'item-197'], ['199', 'item-199']]);
    expect(reports).toHaveLength(1);
    expect(reports[0]?.sourceSql).toBe('SELECT "id", "name", "active" FROM "items" WHERE "id" > ?');
    expect(reports[0]?.params).toEqual([190]);
    expect(reports[0]?.rowsFetched).toBe(10);
  });

  it('a projection that misses a column the query reads falls back to every column, keeping the predicates', async () => {
    const reports: LandingReport[] = [];
    const r = await collect(
      engine.execute('SELECT id, name, price FROM shop.items WHERE id > 197 ORDER BY id', {
        pushdown: [{ table: ITEMS, columns: ['id'], predicates: [{ column: 'id', op: '>', value: 197 }] }],
        onLanding: (x) => reports.push(x),
      }),
    );
    expect(r.rows).toEqual([['198', 'item-198', '49.50'], ['199', 'item-199', '49.75'], ['200', 'item-200', '50.00']]);
    expect(reports.map((x) => [x.sourceSql, x.rowsFetched])).toEqual([
      ['SELECT "id" FROM "items" WHERE "id" > ?', 3],
      ['SELECT * FROM "items" WHERE "id" > ?', 3],
    ]);
  });

  it('law: pushing predicates and a projection into SQLite never changes an answer', async () => {
    await checkPushdownLaw(
      engine,
      {
        ref: ITEMS,
        name: 'shop.items',
        key: 'id',
        columns: [
          { name: 'id', values: [0, 1, 3, 100, 199.5, 200, -1] },
          { name: 'name', values: ['item-5', 'Item-5', 'ITEM', 'b', 'B', 'bolt', '', 'item-19 '], patterns: ['item-1%', 'ITEM%', '%5', 'b_lt'] },
          { name: 'price', values: [0.1, 1.25, 25, 49.75, 1000] },
          { name: 'ratio', values: [0.001, 0.5, 10] },
        ],
      },
      40,
    );
  });

  it('lands a referenced table whole when the caller gives no pushdown for it', async () => {
    const reports: LandingReport[] = [];
    const r = await collect(engine.execute('SELECT count(*)::INTEGER FROM shop.items', { onLanding: (x) => reports.push(x) }));
    expect(r.rows).toEqual([[200]]);
    expect(reports.map((x) => [x.sourceSql, x.rowsFetched])).toEqual([['SELECT * FROM "items"', 200]]);
  });

  it('merges two references to one table: union of columns, only the shared predicates', async () => {
    const reports: LandingReport[] = [];
    const r = await collect(
      engine.execute('SELECT a.id, b.name FROM shop.items a JOIN shop.items b ON a.id = b.id + 1 WHERE a.id BETWEEN 10 AND 12 AND b.id < 50 ORDER BY 1', {
        pushdown: [
          { table: ITEMS, columns: ['id'], predicates: [{ column: 'id', op: '>=', value: 10 }, { column: 'id', op: '<=', value: 12 }] },
          { table: ITEMS, columns: ['id', 'name'], predicates: [{ column: 'id', op: '<', value: 50 }] },
        ],
        onLanding: (x) => reports.push(x),
      }),
    );
    expect(r.rows).toEqual([['10', 'item-9'], ['11', 'item-10'], ['12', 'item-11']]);
    expect(reports[0]?.sourceSql).toBe('SELECT "id", "name" FROM "items"');
  });

  it('each query sees the source as it is now: nothing landed outlives a query', async () => {
    const db = new Database(files.sqlite);
    db.prepare("UPDATE items SET name = 'renamed' WHERE id = 4").run();
    db.close();
    const q = 'SELECT name FROM shop.items WHERE id = 4';
    const spec = { pushdown: [{ table: ITEMS, columns: ['id', 'name'], predicates: [{ column: 'id', op: '=' as const, value: 4 }] }] };
    expect((await collect(engine.execute(q, spec))).rows).toEqual([['renamed']]);
    const db2 = new Database(files.sqlite);
    db2.prepare("UPDATE items SET name = 'item-4' WHERE id = 4").run();
    db2.close();
    expect((await collect(engine.execute(q, spec))).rows).toEqual([['item-4']]);
  });

  it('concurrent queries with different pushdowns each see their own landing', async () => {
    const q = (lo: number, hi: number) =>
      collect(
        engine.execute('SELECT min(id)::INTEGER, max(id)::INTEGER, count(*)::INTEGER FROM shop.items', {
          pushdown: [{ table: ITEMS, columns: ['id'], predicates: [{ column: 'id', op: '>=', value: lo }, { column: 'id', op: '<=', value: hi }] }],
        }),
      );
    const [a, b, c] = await Promise.all([q(1, 10), q(100, 150), q(190, 200)]);
    expect(a.rows).toEqual([[1, 10, 10]]);
    expect(b.rows).toEqual([[100, 150, 51]]);
    expect(c.rows).toEqual([[190, 200, 11]]);
  });

  it('joins a SQLite table with a CSV file', async () => {
    const r = await collect(
      engine.execute(
        'SELECT i.id, i.name, s.segment FROM shop.items i JOIN sales.customer_segments s ON s.customer_id = i.id ORDER BY i.id',
      ),
    );
    expect(r.rows).toEqual([
      ['1', 'bolt', 'enterprise'],
      ['2', 'nut', 'smb'],
      ['3', null, 'smb'],
      ['4', 'item-4', 'consumer'],
    ]);
  });

  it('a missing SQLite file is SOURCE_UNAVAILABLE for queries that need it; the CSV still answers', async () => {
    const moved = `${files.sqlite}.gone`;
    renameSync(files.sqlite, moved);
    try {
      let err: unknown;
      try {
        await collect(engine.execute('SELECT count(*) FROM shop.items'));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ShoalError);
      expect((err as ShoalError).code).toBe('SOURCE_UNAVAILABLE');
      expect((err as ShoalError).message).toContain('"shop-db"');
      expect((await engine.health('shop-db')).code).toBe('SOURCE_UNAVAILABLE');
      expect((await collect(engine.execute('SELECT count(*)::INTEGER FROM sales.customer_segments'))).rows).toEqual([[4]]);
    } finally {
      renameSync(moved, files.sqlite);
    }
    expect((await engine.health('shop-db')).ok).toBe(true);
  });

  it('quotes awkward identifiers and lands empty tables with their columns', async () => {
    const db = new Database(files.sqlite);
    db.exec(`CREATE TABLE "odd table" ("weird ""col""" INTEGER, "select" TEXT, untyped)`);
    db.exec(`CREATE TABLE empty_one (id INTEGER, amount DECIMAL(9,3))`);
    db.prepare(`INSERT INTO "odd table" VALUES (?, ?, ?)`).run(1, "it's", null);
    db.close();
    const src = { id: 'shop-db', type: 'sqlite', path: files.sqlite };
    const extra = [
      entry(src, { domain_id: 'odd', schema: 'main', table: 'odd table', alias: 'odd_table' }),
      entry(src, { domain_id: 'odd', schema: 'main', table: 'empty_one' }),
    ];
    await engine.reconcile([...entries, ...extra]);
    try {
      const reports: LandingReport[] = [];
      const r = await collect(
        engine.execute('SELECT "weird ""col""", "select", untyped FROM odd.odd_table WHERE "select" = $1', {
          params: ["it's"],
          pushdown: [{ table: { sourceId: 'shop-db', schema: 'main', table: 'odd table' }, columns: ['weird "col"', 'select', 'untyped'], predicates: [{ column: 'select', op: '=', value: "it's" }] }],
          onLanding: (x) => reports.push(x),
        }),
      );
      expect(r.rows).toEqual([['1', "it's", null]]);
      expect(reports[0]?.sourceSql).toBe('SELECT "weird ""col""", "select", "untyped" FROM "odd table" WHERE "select" = ?');
      const empty = await collect(engine.execute('SELECT * FROM odd.empty_one'));
      expect(empty).toEqual({ columns: [{ name: 'id', type: 'BIGINT' }, { name: 'amount', type: 'DECIMAL(9,3)' }], rows: [], batches: 1 });
    } finally {
      await engine.reconcile(entries);
    }
  });

  it('a pushdown naming a table outside the catalog is refused', async () => {
    let err: unknown;
    try {
      await collect(engine.execute('SELECT 1', { pushdown: [{ table: { sourceId: 'nope', schema: 'x', table: 'y' } }] }));
    } catch (e) {
      err = e;
    }
    expect((err as ShoalError).code).toBe('ENGINE_UNKNOWN_TABLE');
  });
});
