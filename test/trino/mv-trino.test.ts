/**
 * Materialized views on the Trino engine, against a real Trino 476: a `federation_engine: trino`
 * instance refreshes an MV by running its governed view_sql on Trino, writes the snapshot through
 * the same snapshot store and fenced commit as DuckDB, and reads the published snapshot back on
 * Trino (a hive table over a copy in the scratch area), giving the DuckDB instance's rows; a
 * writer that lost its lease cannot publish; hot tables are off on Trino, and it says so.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteClient } from '../../src/core/sql/sqlite-client.js';
import { loadConfig } from '../../src/shoal/check/load-config.js';
import type { CatalogModel } from '../../src/shoal/config/model.js';
import { ShoalInstance } from '../../src/shoal/instance/instance.js';
import { MvService } from '../../src/shoal/mv/mv-service.js';
import { SnapshotStore } from '../../src/shoal/mv/snapshot-store.js';
import { readyTrino, trinoAvailable } from './trino-context.js';

const CONFIG = `
domains: [{id: sales}]
sources:
  - {id: orders-csv, type: csv, path: orders.csv}
tables:
  - source_id: orders-csv
    domain_id: sales
    table: orders
    columns:
      - {name: id, data_type: integer}
      - {name: region, data_type: varchar}
      - {name: amount, data_type: integer}
      - {name: secret, data_type: varchar, visible_to: [admin]}
  - source_id: __derived__
    domain_id: sales
    table: by_region
    materialize: true
    mv_refresh_interval: 3600
    view_sql: 'SELECT region, sum(amount) AS total, count(secret) AS n_secret, max(CAST(amount AS numeric(12,2))) AS top FROM "orders_csv"."default"."orders" GROUP BY region'
    columns:
      - {name: region, data_type: varchar}
      - {name: total, data_type: bigint}
      - {name: n_secret, data_type: bigint, visible_to: [admin]}
      - {name: top, data_type: decimal}
roles:
  - {id: admin, capabilities: [admin, full_results], domain_access: ["*"]}
  - {id: analyst, capabilities: [], domain_access: [sales]}
rls_rules:
  - {table_id: by_region, role_id: analyst, filter: "region = 'eu'"}
`;

async function read(instance: ShoalInstance, role: string, sql: string) {
  const r = await instance.query({ sql, role, vars: {} }, new AbortController().signal);
  const rows: unknown[][] = [];
  for await (const b of r.batches) rows.push(...b.map((row) => [...row]));
  return { mv: r.headers?.['x-shoal-mv'] ?? null, rows };
}

const multiset = (rows: readonly (readonly unknown[])[]) => rows.map((r) => JSON.stringify(r)).sort();

describe.runIf(trinoAvailable())('materialized views on the Trino engine', () => {
  let dir: string;
  let trino: ShoalInstance;
  let duck: ShoalInstance;
  const notices: { code: string }[] = [];

  beforeAll(async () => {
    const info = await readyTrino();
    dir = mkdtempSync(join(tmpdir(), 'shoal-mv-trino-'));
    writeFileSync(join(dir, 'orders.csv'), 'id,region,amount,secret\n1,eu,10,s1\n2,us,20,\n3,eu,30,s3\n4,apac,5,\n');
    const start = (extra: string, registry: string, onError?: (e: unknown) => void) => {
      writeFileSync(join(dir, `${registry}.yaml`), `${extra}control_plane: {tenant_url: "sqlite:///${registry}.db"}\nmaterialize_store_url: ${join(dir, `${registry}-mv`)}\n${CONFIG}`);
      const { config } = loadConfig({ path: join(dir, `${registry}.yaml`) });
      return ShoalInstance.start({ config, baseDir: dir, pollMs: 60_000, mv: { tickMs: 0 }, resultCache: false, ...(onError ? { onError } : {}) });
    };
    trino = await start(`federation_engine: trino\nfederation_engine_url: ${info.url}\nfederation_engine_scratch_dir: scratch\n`, 'trino', (e) => notices.push(e as Error & { code: string }));
    duck = await start('', 'duck');
  });
  afterAll(async () => {
    await trino?.close();
    await duck?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refreshes through the fenced commit, and reads the snapshot on Trino with the rows DuckDB gives', async () => {
    expect(trino.engine.name).toBe('trino');
    const before = await read(trino, 'admin', 'SELECT * FROM sales.by_region');
    expect(before.mv).toBe('sales.by_region=live');
    const r = await trino.mvs!.refresh('sales.by_region');
    expect(r).toMatchObject({ outcome: 'refreshed', rowCount: 3 });
    const id = (r as { snapshotId: string }).snapshotId;
    expect(await trino.mvs!.catalog.get('sales.by_region')).toMatchObject({ snapshotId: id, status: 'fresh' });
    expect(await duck.mvs!.refresh('sales.by_region')).toMatchObject({ outcome: 'refreshed', rowCount: 3 });
    for (const [role, sql] of [
      ['admin', 'SELECT * FROM sales.by_region'],
      ['analyst', 'SELECT region, total, top FROM sales.by_region'],
      ['admin', 'SELECT o.id, m.total FROM sales.orders o JOIN sales.by_region m ON m.region = o.region'],
    ] as const) {
      const got = await read(trino, role, sql);
      expect(got.mv).toBe(`sales.by_region=snapshot:${id}`);
      expect(multiset(got.rows)).toEqual(multiset((await read(duck, role, sql)).rows));
    }
    // RLS of the MV's own rules on the snapshot read
    expect((await read(trino, 'analyst', 'SELECT region FROM sales.by_region')).rows).toEqual([['eu']]);
  });

  it('a writer whose lease was taken over cannot publish (lost_lease), and the new holder\'s snapshot is served', async () => {
    const db = await openSqliteClient(join(dir, 'fence-catalog.db'));
    const store = await SnapshotStore.open(join(dir, 'fence-store'));
    const model = loadConfig({ path: join(dir, 'trino.yaml') }).config;
    const absolute: CatalogModel = { ...model, sources: model.sources.map((s) => ({ ...s, path: join(dir, s.path!) })) };
    // B takes over while A is paused past its lease (no heartbeat runs): A's commit is fenced out
    const b = await MvService.open({ db, store, engine: trino.engine, writer: 'B', leaseMs: 60_000 });
    let bResult: Awaited<ReturnType<MvService['refresh']>> | undefined;
    const a = await MvService.open({
      db,
      store,
      engine: trino.engine,
      writer: 'A',
      leaseMs: 1000,
      heartbeat: { schedule: () => () => undefined },
      beforeCommit: async () => {
        await new Promise((r) => setTimeout(r, 1500));
        bResult = await b.refresh('sales.by_region', { force: true });
      },
    });
    try {
      await a.sync(absolute);
      await b.sync(absolute);
      const lost = await a.refresh('sales.by_region');
      expect(lost.outcome).toBe('lost_lease');
      expect(bResult).toMatchObject({ outcome: 'refreshed', rowCount: 3 });
      const published = (bResult as { snapshotId: string }).snapshotId;
      expect(await a.catalog.get('sales.by_region')).toMatchObject({ snapshotId: published });
      expect((await a.log('sales.by_region')).map((e) => e.outcome)).toContain('lost_lease');
      // readers of either service see B's snapshot, read on Trino
      const bound = await a.bind({ sql: `SELECT region, total FROM "${a.info('sales.by_region')!.relation}"`, tables: ['sales.by_region'] });
      expect(bound.headers['x-shoal-mv']).toBe(`sales.by_region=snapshot:${published}`);
      const rows: unknown[][] = [];
      for await (const batch of trino.engine.execute(bound.sql)) rows.push(...batch.rows.map((r) => [...r]));
      expect(multiset(rows)).toEqual(multiset([['eu', '40'], ['us', '20'], ['apac', '5']]));
    } finally {
      await db.close();
    }
  });

  it('hot tables are off on Trino, said once at start with HOT_TABLES_OFF', () => {
    expect(trino.hot).toBeUndefined();
    expect(notices.filter((n) => n.code === 'HOT_TABLES_OFF')).toHaveLength(1);
    expect(duck.hot).toBeDefined();
  });
});
