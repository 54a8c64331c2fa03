/**
 * MVs in one instance, end to end on the real DuckDB engine and a SQLite registry: live reads
 * before the first refresh (said in x-shoal-mv), content computed with the service identity, reads
 * governed by the MV table's own visibility and RLS, the published snapshot read by every query
 * after the commit, input changes detected, and snapshot reads equal to live reads.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { MvService } from '../../../src/shoal/mv/mv-service.js';
import { SnapshotStore } from '../../../src/shoal/mv/snapshot-store.js';
import { openSqliteClient } from '../../../src/core/sql/sqlite-client.js';

async function read(instance: ShoalInstance, role: string, sql: string) {
  const r = await instance.query({ sql, role, vars: {} }, new AbortController().signal);
  const rows: unknown[][] = [];
  for await (const b of r.batches) rows.push(...b.map((row) => [...row]));
  return { mv: r.headers?.['x-shoal-mv'] ?? null, columns: r.columns.map((c) => c.name), rows };
}

const CONFIG = `
domains: [{id: sales}]
sources:
  - {id: orders-csv, type: csv, path: orders.csv}
  - {id: kinds-csv, type: csv, path: kinds.csv}
tables:
  - source_id: orders-csv
    domain_id: sales
    table: orders
    columns:
      - {name: id, data_type: integer}
      - {name: region, data_type: varchar}
      - {name: amount, data_type: integer}
      - {name: secret, data_type: varchar, visible_to: [admin]}
  - source_id: kinds-csv
    domain_id: sales
    table: kinds
    columns: [{name: k, data_type: integer}, {name: d, data_type: varchar}]
  - source_id: __derived__
    domain_id: sales
    table: by_region
    materialize: true
    mv_refresh_interval: 3600
    view_sql: 'SELECT region, sum(amount) AS total, count(secret) AS n_secret FROM "orders_csv"."default"."orders" GROUP BY region'
    columns:
      - {name: region, data_type: varchar}
      - {name: total, data_type: bigint}
      - {name: n_secret, data_type: bigint, visible_to: [admin]}
  - source_id: __derived__
    domain_id: sales
    table: typed
    materialize: true
    view_sql: >-
      SELECT k, d, CAST(k AS numeric(12,2)) / 4 AS dec, DATE '2024-02-29' + CAST(k AS integer) AS day,
             TIMESTAMP '2024-01-01 10:00:00' + k * INTERVAL '90 minutes' AS ts, k % 2 = 0 AS even,
             CAST(k AS bigint) * 3000000000 AS big, CASE WHEN k > 2 THEN NULL ELSE d END AS maybe
      FROM "kinds_csv"."default"."kinds"
    columns:
      - {name: k, data_type: integer}
      - {name: d, data_type: varchar}
      - {name: dec, data_type: decimal}
      - {name: day, data_type: date}
      - {name: ts, data_type: timestamp}
      - {name: even, data_type: boolean}
      - {name: big, data_type: bigint}
      - {name: maybe, data_type: varchar}
roles:
  - {id: admin, capabilities: [admin, full_results], domain_access: ["*"]}
  - {id: analyst, capabilities: [], domain_access: [sales]}
rls_rules:
  - {table_id: by_region, role_id: analyst, filter: "region = 'eu'"}
`;

describe('an instance serving MVs', () => {
  let dir: string;
  let instance: ShoalInstance;
  const ORDERS = 'id,region,amount,secret\n1,eu,10,s1\n2,us,20,\n3,eu,30,s3\n';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-mv-inst-'));
    writeFileSync(join(dir, 'orders.csv'), ORDERS);
    writeFileSync(join(dir, 'kinds.csv'), 'k,d\n1,"it\'s"\n2,"a ""quoted"" one"\n3,ü\n');
    writeFileSync(join(dir, 'shoal.yaml'), CONFIG);
    instance = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'shoal.yaml') }).config, baseDir: dir, mv: { tickMs: 0 } });
  }, 120_000); // starting an instance can be slow on a loaded machine
  afterAll(async () => {
    await instance?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('before any refresh an MV is computed live, governed, and the response says so', async () => {
    expect(await read(instance, 'admin', 'SELECT * FROM sales.by_region ORDER BY region')).toEqual({
      mv: 'sales.by_region=live',
      columns: ['region', 'total', 'n_secret'],
      rows: [['eu', 40, 2], ['us', 20, 0]],
    });
    // the analyst's reads follow the MV's own rules: RLS, and n_secret is not visible
    expect((await read(instance, 'analyst', 'SELECT * FROM sales.by_region')).rows).toEqual([['eu', 40]]);
    await expect(read(instance, 'analyst', 'SELECT n_secret FROM sales.by_region')).rejects.toMatchObject({ code: 'SQL_UNKNOWN_COLUMN' });
    // ...although the analyst cannot read the column the MV was computed from
    await expect(read(instance, 'analyst', 'SELECT secret FROM sales.orders')).rejects.toMatchObject({ code: 'SQL_UNKNOWN_COLUMN' });
    expect(readdirSync(dir)).not.toContain('shoal-mv');
  });

  it('a refresh publishes a snapshot computed with the service identity, and every later read uses it', async () => {
    const r = await instance.mvs!.refresh('sales.by_region');
    expect(r).toMatchObject({ outcome: 'refreshed', rowCount: 2 });
    const id = (r as { snapshotId: string }).snapshotId;
    expect(await read(instance, 'admin', 'SELECT * FROM sales.by_region ORDER BY region')).toEqual({
      mv: `sales.by_region=snapshot:${id}`,
      columns: ['region', 'total', 'n_secret'],
      rows: [['eu', 40, 2], ['us', 20, 0]],
    });
    expect((await read(instance, 'analyst', 'SELECT region, total FROM sales.by_region')).rows).toEqual([['eu', 40]]);
    // joined with a source table, and inside the query's own CTE
    expect((await read(instance, 'admin', 'WITH m AS (SELECT region, total FROM sales.by_region) SELECT o.id, m.total FROM sales.orders o JOIN m ON m.region = o.region ORDER BY o.id')).rows).toEqual([
      [1, 40],
      [2, 20],
      [3, 40],
    ]);
    expect((await instance.mvs!.row('sales.by_region'))?.snapshotId).toBe(id);
  });

  it('unchanged inputs give no candidate and no refresh; a changed input does, and the next read sees it', async () => {
    expect(await instance.mvs!.candidates()).toEqual(['sales.typed']); // never materialized
    expect(await instance.mvs!.refresh('sales.by_region')).toMatchObject({ outcome: 'skipped', reason: 'up_to_date' });
    writeFileSync(join(dir, 'orders.csv'), `${ORDERS}4,apac,5,s4\n`);
    expect(await instance.mvs!.candidates()).toContain('sales.by_region');
    expect(await instance.mvs!.refresh('sales.by_region')).toMatchObject({ outcome: 'refreshed', rowCount: 3 });
    expect((await read(instance, 'admin', 'SELECT region, total, n_secret FROM sales.by_region ORDER BY region')).rows).toEqual([
      ['apac', 5, 1],
      ['eu', 40, 2],
      ['us', 20, 0],
    ]);
    const log = await instance.mvs!.log('sales.by_region');
    expect(log.map((e) => e.outcome)).toEqual(['refreshed', 'skipped', 'refreshed']);
  });

  it('a snapshot keeps every type as the live query returns it (decimal, date, timestamp, boolean, bigint, NULL, quotes)', async () => {
    const q = 'SELECT * FROM sales.typed ORDER BY k';
    const live = await read(instance, 'admin', q);
    expect(live.mv).toBe('sales.typed=live');
    expect(await instance.mvs!.refresh('sales.typed')).toMatchObject({ outcome: 'refreshed', rowCount: 3 });
    const snap = await read(instance, 'admin', q);
    expect(snap.mv).toMatch(/^sales\.typed=snapshot:/);
    expect(snap.rows).toEqual(live.rows);
    expect(snap.rows[1]).toEqual([2, 'a "quoted" one', '0.5', '2024-03-02', '2024-01-01 13:00:00', true, 6000000000, 'a "quoted" one']);
  });

  it('an MV whose interval elapsed but whose inputs are unchanged is not a candidate: an idle fleet logs no skips', async () => {
    const db = await openSqliteClient(join(dir, 'idle-catalog.db'));
    try {
      const mvs = await MvService.open({ db, store: await SnapshotStore.open(join(dir, 'idle-store')), engine: instance.engine });
      const model = loadConfig({ path: join(dir, 'shoal.yaml') }).config;
      await mvs.sync({
        ...model,
        sources: model.sources.map((s) => ({ ...s, path: join(dir, s.path!) })),
        tables: model.tables.map((t) => (t.table === 'by_region' ? { ...t, mv_refresh_interval: 0 } : t)),
      });
      expect(await mvs.candidates()).toEqual(['sales.by_region', 'sales.typed']);
      expect(await mvs.refresh('sales.by_region')).toMatchObject({ outcome: 'refreshed' });
      expect((await mvs.catalog.due()).map((r) => r.id)).toContain('sales.by_region'); // the interval (0 s) has elapsed
      expect(await mvs.candidates()).toEqual(['sales.typed']);
      expect((await mvs.log('sales.by_region')).map((e) => e.outcome)).toEqual(['refreshed']);
    } finally {
      await db.close();
    }
  });

  it('a running refresh shows its progress and timing until it commits', async () => {
    const db = await openSqliteClient(join(dir, 'progress-catalog.db'));
    try {
      let seen: ReturnType<MvService['running']> = [];
      let now = 1_000;
      const mvs: MvService = await MvService.open({
        db,
        store: await SnapshotStore.open(join(dir, 'progress-store')),
        engine: instance.engine,
        writer: 'w1',
        now: () => now,
        beforeCommit: async () => {
          now += 250;
          seen = mvs.running();
        },
      });
      const model = loadConfig({ path: join(dir, 'shoal.yaml') }).config;
      await mvs.sync({ ...model, sources: model.sources.map((s) => ({ ...s, path: join(dir, s.path!) })) });
      expect(mvs.running()).toEqual([]);
      const r = await mvs.refresh('sales.typed');
      expect(seen).toEqual([
        {
          mvId: 'sales.typed',
          consistency: 'shared',
          writer: 'w1#1',
          phase: 'committing',
          attempt: 1,
          startedAtMs: 1_000,
          elapsedMs: 250,
          rowsWritten: 3,
          snapshotId: (r as { snapshotId: string }).snapshotId,
        },
      ]);
      expect(mvs.running()).toEqual([]);
      // the finished refresh reports its duration from the log (database clock)
      expect(await mvs.lastRefresh('sales.typed')).toMatchObject({ outcome: 'refreshed', rowCount: 3, writer: 'w1', durationMs: expect.any(Number) });
    } finally {
      await db.close();
    }
  });

  it('law: reading the published snapshot equals computing the MV live from the same inputs', async () => {
    const store = await SnapshotStore.open(join(dir, 'law-store'));
    const db = await openSqliteClient(join(dir, 'law-catalog.db'));
    const mvs = await MvService.open({ db, store, engine: instance.engine, resolveMaxAgeMs: 0 });
    const model = loadConfig({ path: join(dir, 'shoal.yaml') }).config;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.record({ region: fc.constantFrom('eu', 'us', 'apac', "o'x"), amount: fc.integer({ min: -1000, max: 1000 }), secret: fc.option(fc.constantFrom('a', 'b')) }), { minLength: 1, maxLength: 12 }), // (a header-only CSV types every column VARCHAR: not an MV question)
          async (orders) => {
            writeFileSync(join(dir, 'orders.csv'), `id,region,amount,secret\n${orders.map((o, i) => `${i},"${o.region}",${o.amount},${o.secret ?? ''}`).join('\n')}\n`);
            await mvs.sync({ ...model, sources: model.sources.map((s) => ({ ...s, path: join(dir, s.path!) })) });
            const plan = { sql: `SELECT * FROM "${mvs.info('sales.by_region')!.relation}" ORDER BY region`, tables: ['sales.by_region'] };
            const run = async () => {
              const bound = await mvs.bind(plan);
              const rows: unknown[][] = [];
              for await (const b of instance.engine.execute(bound.sql)) rows.push(...b.rows.map((r) => [...r]));
              return { header: bound.headers['x-shoal-mv'], rows };
            };
            const r = await mvs.refresh('sales.by_region', { force: true });
            expect(r, JSON.stringify(r)).toMatchObject({ outcome: 'refreshed' });
            const after = await run();
            expect(after.header).toMatch(/=snapshot:/);
            const live = [];
            for await (const b of instance.engine.execute(`SELECT * FROM (${mvs.info('sales.by_region')!.engineSql}) ORDER BY region`)) live.push(...b.rows.map((x) => [...x]));
            expect(after.rows).toEqual(live);
          },
        ),
        { numRuns: 12 },
      );
    } finally {
      await db.close();
      writeFileSync(join(dir, 'orders.csv'), ORDERS);
    }
  });
});
