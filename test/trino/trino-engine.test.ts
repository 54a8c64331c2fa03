/**
 * The Trino engine against a real Trino 476: reconcile projects file sources (through a hive
 * catalog over the scratch area) and landed sources; answers equal the DuckDB engine's over the
 * same sources; landed Parquet is gone after each query; unreachable combinations are typed errors.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogEntry } from '../../src/shoal/engine/catalog-entry.js';
import { DuckDbEngine } from '../../src/shoal/engine/duckdb/duckdb-engine.js';
import type { LandingReport } from '../../src/shoal/engine/engine.js';
import { TrinoEngine } from '../../src/shoal/engine/trino/trino-engine.js';
import { ShoalError } from '../../src/shoal/errors.js';
import { bindFailureText } from '../../src/shoal/engine/bind-error.js';
import { bareQuery } from '../../src/shoal/sql/bare-query.js';
import { createCatalog } from '../../src/shoal/sql/index.js';
import { salesSpec } from '../shoal/sql/fixtures.js';
import { collect, entry, makeFiles, type FileFixture } from '../shoal/engine/duckdb/engine-fixtures.js';
import { readyTrino, trinoAvailable } from './trino-context.js';

const multiset = (rows: readonly (readonly unknown[])[]) => rows.map((r) => JSON.stringify(r)).sort();

describe.runIf(trinoAvailable())('the Trino engine', () => {
  let files: FileFixture;
  let scratch: string;
  let trino: TrinoEngine;
  let duck: DuckDbEngine;
  let entries: CatalogEntry[];

  beforeAll(async () => {
    const info = await readyTrino();
    files = await makeFiles();
    scratch = mkdtempSync(join(tmpdir(), 'shoal-trino-scratch-'));
    entries = [
      entry({ id: 'te-shop', type: 'sqlite', path: files.sqlite }, { domain_id: 'shop', schema: 'main', table: 'items' }),
      entry({ id: 'te-csv', type: 'csv', path: files.csv }, { domain_id: 'sales', table: 'customer_segments' }),
      entry({ id: 'te-pq', type: 'parquet', path: files.parquet }, { domain_id: 'sales', table: 'typed' }),
      entry({ id: 'te-json', type: 'json', path: files.json }, { domain_id: 'ops', table: 'events' }),
    ];
    trino = await TrinoEngine.create({ url: info.url, scratchDir: scratch });
    duck = await DuckDbEngine.create();
    expect((await trino.reconcile(entries)).failed).toEqual([]);
    expect((await duck.reconcile(entries)).failed).toEqual([]);
  });
  afterAll(async () => {
    await trino?.close();
    await duck?.close();
    files?.cleanup();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const parity = [
    ['csv file', 'SELECT customer_id, segment, region FROM te_csv."default".customer_segments'],
    ['parquet types: bigint beyond 2^53, decimals, microsecond timestamps, JSON, unicode', 'SELECT id, big, amount, "day", "at", flag, label, doc FROM te_pq."default".typed'],
    ['json file', 'SELECT id, kind, n FROM te_json."default".events'],
    ['landed sqlite, filtered and aggregated', 'SELECT active, count(*) AS n, sum(price) AS total, max(big) AS big FROM te_shop.main.items WHERE id > 2 GROUP BY active'],
    ['landed sqlite, every type', 'SELECT id, name, price, big, ratio, active, added, seen FROM te_shop.main.items WHERE id <= 3'],
    ['a join across a landed and a file source', 'SELECT s.segment, count(*) AS n FROM te_shop.main.items i JOIN te_csv."default".customer_segments s ON s.customer_id = i.id % 4 + 1 GROUP BY s.segment'],
  ] as const;

  it.each(parity)('same answer as DuckDB: %s', async (_name, sql) => {
    const want = await collect(duck.execute(sql));
    const got = await collect(trino.execute(sql));
    expect(got.columns.map((c) => c.name)).toEqual(want.columns.map((c) => c.name));
    expect(multiset(got.rows)).toEqual(multiset(want.rows));
  });

  it('pushes predicates into the landing statement, and the landed Parquet is gone when the stream ends', async () => {
    const reports: LandingReport[] = [];
    const r = await collect(trino.execute('SELECT count(*) AS n FROM "te_shop"."main"."items" WHERE id <= 10', {
      pushdown: [{ table: { sourceId: 'te-shop', schema: 'main', table: 'items' }, columns: ['id'], predicates: [{ column: 'id', op: '<=', value: 10 }] }],
      onLanding: (x) => reports.push(x),
    }));
    expect(r.rows).toEqual([['10']]);
    expect(reports).toHaveLength(1);
    expect(reports[0]!.rowsFetched).toBe(10);
    expect(reports[0]!.sourceSql).toMatch(/WHERE/);
    expect(await trino.landedFiles()).toEqual([]);
  });

  it('a changed source file is read again', async () => {
    const { writeFileSync } = await import('node:fs');
    const before = await collect(trino.execute('SELECT count(*) FROM te_csv."default".customer_segments'));
    writeFileSync(files.csv, 'customer_id,segment,region\n1,a,eu\n2,b,us\n3,c,eu\n4,d,us\n5,e,eu\n');
    const after = await collect(trino.execute('SELECT count(*) FROM te_csv."default".customer_segments'));
    expect(before.rows).toEqual([['4']]);
    expect(after.rows).toEqual([['5']]);
  });

  it('refuses anything but a read, before Trino sees it', async () => {
    await expect(collect(trino.execute('DROP TABLE te_csv."default".customer_segments'))).rejects.toMatchObject({ code: 'ENGINE_READ_ONLY' });
    await expect(collect(trino.execute('CREATE CATALOG x USING memory'))).rejects.toMatchObject({ code: 'ENGINE_READ_ONLY' });
  });

  it('a Trino error is a typed engine error that does not echo Trino\'s text', async () => {
    const e = await collect(trino.execute('SELECT no_such_column FROM te_csv."default".customer_segments')).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ShoalError);
    expect((e as ShoalError).code).toBe('ENGINE_QUERY_FAILED');
    expect((e as ShoalError).message).not.toMatch(/no_such_column/);
  });

  it("a data error of the query's own is SQL_DATA_EXCEPTION (a 400, as at a source), named by SQLSTATE only", async () => {
    const t = 'te_csv."default".customer_segments';
    for (const [sql, state] of [[`SELECT CAST(segment AS INTEGER) FROM ${t}`, '22018'], [`SELECT CAST(customer_id AS INTEGER) / 0 FROM ${t}`, '22012']] as const) {
      const e = await collect(trino.execute(sql)).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ShoalError);
      expect((e as ShoalError).code).toBe('SQL_DATA_EXCEPTION');
      expect((e as ShoalError).message).toMatch(new RegExp(`^the query hit a data error at the engine: [a-z ]+ \\(SQLSTATE ${state}\\)$`));
    }
  });

  it("a grouping or aggregate mistake of the query's own SQL is told as a bind failure on both engines; a typing refusal on Trino and a data error are not", async () => {
    const t = 'te_csv."default".customer_segments';
    const mistakes = [
      `SELECT segment, count(*) FROM ${t} GROUP BY region`,
      `SELECT customer_id FROM ${t} WHERE sum(customer_id) > 1`,
      `SELECT sum(count(*)) FROM ${t}`,
    ];
    for (const sql of mistakes) {
      for (const engine of [trino, duck]) {
        const e = await collect(engine.execute(sql)).catch((x: unknown) => x);
        expect(e, `${engine.name}: ${sql}`).toMatchObject({ code: 'ENGINE_QUERY_FAILED' });
        expect(bindFailureText(e), `${engine.name}: ${sql}`).toEqual(expect.any(String));
      }
    }
    const failure = (engine: TrinoEngine | DuckDbEngine, sql: string) => collect(engine.execute(sql)).catch((x: unknown) => x);
    // Trino types more strictly than PostgreSQL: its refusal may be the dialect's, so it is not the client's
    expect(bindFailureText(await failure(duck, `SELECT customer_id + segment FROM ${t}`))).toEqual(expect.any(String));
    expect(await failure(trino, `SELECT customer_id + segment FROM ${t}`)).toMatchObject({ code: 'ENGINE_QUERY_FAILED' });
    expect(bindFailureText(await failure(trino, `SELECT customer_id + segment FROM ${t}`))).toBeUndefined();
    expect(bindFailureText(await failure(trino, `SELECT CAST(segment AS INTEGER) FROM ${t}`))).toBeUndefined();
  });

  it("the client's query alone (no policy, typed stand-ins) is valid Trino SQL: it binds when correct and not when the grouping is wrong", async () => {
    const catalog = createCatalog(salesSpec());
    const bare = (sql: string) => bareQuery({ sql, role: 'analyst', vars: { 'provisa.region': 'EU' } }, catalog, 'trino');
    expect((await collect(trino.execute(bare('SELECT c.region, sum(p.amount) AS s, max(c.signup) FROM sales.customers c JOIN sales.payments p ON p.customer_id = c.id GROUP BY c.region')))).rows).toEqual([]);
    const e = await collect(trino.execute(bare('SELECT name, count(*) FROM sales.customers GROUP BY region'))).catch((x: unknown) => x);
    expect(bindFailureText(e)).toMatch(/name/);
  });

  it('an unreachable combination is ENGINE_SOURCE_UNREACHABLE, in the report and at query time', async () => {
    const attached = entry({ id: 'te-attached', type: 'sqlite', path: files.sqlite, attach: true }, { domain_id: 'shop2', schema: 'main', table: 'items' });
    const pg = entry({ id: 'te-pg', type: 'postgresql', host: '127.0.0.1', port: 1, database: 'x', attach: true }, { domain_id: 'shop3', table: 'items' });
    const report = await trino.reconcile([...entries, attached, pg]);
    expect(report.failed.map((f) => [f.entry, f.code]).sort()).toEqual([
      ['te_attached.main.items', 'ENGINE_SOURCE_UNREACHABLE'],
      ['te_pg.public.items', 'ENGINE_SOURCE_UNREACHABLE'],
    ]);
    await expect(collect(trino.execute('SELECT * FROM te_attached.main.items'))).rejects.toMatchObject({ code: 'ENGINE_SOURCE_UNREACHABLE' });
    expect(await trino.health('te-pg')).toMatchObject({ ok: false, code: 'ENGINE_SOURCE_UNREACHABLE' });
    expect(await trino.health('te-shop')).toEqual({ sourceId: 'te-shop', ok: true });
    // and reconciling back drops them
    const back = await trino.reconcile(entries);
    expect(back.failed).toEqual([]);
  });
});
