/**
 * Distributed MVs: each instance materializes into its own scratch store without the catalog, and
 * serves its copy only when the inputs did not move during the materialization (source quiescence).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteClient } from '../../../src/core/sql/sqlite-client.js';
import type { SqlClient } from '../../../src/core/sql/sql-client.js';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import type { ShoalConfig } from '../../../src/shoal/config/model.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { MvService } from '../../../src/shoal/mv/mv-service.js';
import { SnapshotStore } from '../../../src/shoal/mv/snapshot-store.js';

describe('distributed MVs', () => {
  let dir: string;
  let instance: ShoalInstance;
  let model: ShoalConfig;
  let db: SqlClient;
  const write = (n: number) => writeFileSync(join(dir, 'orders.csv'), `id,region,amount\n1,eu,${n}\n2,us,20\n`);
  const open = async (afterLocalBuild?: (id: string, attempt: number) => Promise<void>, onNotQuiescent?: (e: Error) => void) => {
    const mvs = await MvService.open({
      db,
      store: await SnapshotStore.open(join(dir, 'shared')),
      localStore: await SnapshotStore.open(join(dir, `local-${Math.random()}`)),
      engine: instance.engine,
      ...(afterLocalBuild ? { afterLocalBuild } : {}),
      ...(onNotQuiescent ? { onNotQuiescent } : {}),
    });
    await mvs.sync(model);
    return mvs;
  };
  const read = async (mvs: MvService) => {
    const bound = await mvs.bind({ sql: `SELECT * FROM "${mvs.info('sales.totals')!.relation}" ORDER BY region`, tables: ['sales.totals'] });
    const rows: unknown[][] = [];
    for await (const b of instance.engine.execute(bound.sql)) rows.push(...b.rows.map((r) => [...r]));
    return { mv: bound.headers['x-shoal-mv'], rows };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-mv-dist-'));
    write(10);
    writeFileSync(join(dir, 'shoal.yaml'), `
domains: [{id: sales}]
sources: [{id: orders-csv, type: csv, path: ${join(dir, 'orders.csv')}}]
tables:
  - {source_id: orders-csv, domain_id: sales, table: orders, columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}, {name: amount, data_type: integer}]}
  - source_id: __derived__
    domain_id: sales
    table: totals
    materialize: true
    mv_consistency: distributed
    view_sql: 'SELECT region, sum(amount) AS total FROM "orders_csv"."default"."orders" GROUP BY region'
    columns: [{name: region, data_type: varchar}, {name: total, data_type: bigint}]
roles: [{id: admin, capabilities: [admin], domain_access: ["*"]}]
`);
    model = loadConfig({ path: join(dir, 'shoal.yaml') }).config;
    instance = await ShoalInstance.start({ config: model, baseDir: dir, mv: { tickMs: 0 } });
    db = await openSqliteClient(join(dir, 'catalog.db'));
  }, 120_000); // starting an instance can be slow on a loaded machine
  afterAll(async () => {
    await db?.close();
    await instance?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is served live until this instance has its own copy, then from that copy; the shared catalog is never used', async () => {
    write(10);
    const mvs = await open();
    expect(await read(mvs)).toMatchObject({ mv: 'sales.totals=live' });
    expect(await mvs.candidates()).toEqual(['sales.totals']);
    const r = await mvs.refresh('sales.totals');
    expect(r).toMatchObject({ outcome: 'refreshed', rowCount: 2 });
    expect(await read(mvs)).toEqual({ mv: `sales.totals=local:${(r as { snapshotId: string }).snapshotId}`, rows: [['eu', '10'], ['us', '20']] });
    expect(await mvs.candidates()).toEqual([]);
    expect(await mvs.refresh('sales.totals')).toMatchObject({ outcome: 'skipped', reason: 'up_to_date' });
    expect(await mvs.rows()).toEqual([]);
    write(11);
    expect(await mvs.candidates()).toEqual(['sales.totals']);
  });

  it('inputs that move during one materialization: retried, and the copy is of one quiescent version', async () => {
    write(10);
    let n = 100;
    const mvs = await open(async (_id, attempt) => {
      if (attempt === 0) write(n++); // a writer lands while the first copy is made
    });
    expect(await mvs.refresh('sales.totals')).toMatchObject({ outcome: 'refreshed' });
    expect((await read(mvs)).rows).toEqual([['eu', '100'], ['us', '20']]);
    expect(mvs.stats().notQuiescent).toBe(0);
  });

  it('inputs that never settle: reported as not quiescent, and the previous copy keeps being served', async () => {
    write(10);
    let n = 200;
    let moving = false;
    const reported: Error[] = [];
    const mvs = await open(async () => {
      if (moving) write(n++);
    }, (e) => reported.push(e));
    expect(await mvs.refresh('sales.totals')).toMatchObject({ outcome: 'refreshed' });
    const served = await read(mvs);
    moving = true;
    write(n++);
    const r = await mvs.refresh('sales.totals');
    expect(r).toMatchObject({ outcome: 'failed' });
    expect(reported.map((e) => (e as { code?: string }).code)).toEqual(['MV_SOURCE_NOT_QUIESCENT']);
    expect(mvs.stats().notQuiescent).toBe(1);
    expect(await read(mvs)).toEqual(served);
  });
});
