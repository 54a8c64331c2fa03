/**
 * Derived tables over derived tables, on the real DuckDB engine and a SQLite registry:
 * - a derived view (`view_sql` without `materialize`) is a governed view executed live;
 * - an MV over an MV reads the upstream's published snapshot, and its input version is that
 *   snapshot id; before the upstream has one it computes the upstream inline (its inputs are then
 *   the upstream's inputs); the loop refreshes the upstream first;
 * - an MV over a view computes the view inline: the view's definition is part of the MV's;
 * - a view over an MV reads the MV's snapshot;
 * - a derived table that reads itself (directly or through others) is refused at registration.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkConfigText, loadConfig } from '../../../src/shoal/check/load-config.js';
import type { ShoalConfig } from '../../../src/shoal/config/model.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { openSqliteClient } from '../../../src/core/sql/sqlite-client.js';
import { planDerivedTables } from '../../../src/shoal/mv/derived-graph.js';
import { MvService } from '../../../src/shoal/mv/mv-service.js';
import { SnapshotStore } from '../../../src/shoal/mv/snapshot-store.js';

async function read(instance: ShoalInstance, role: string, sql: string) {
  const r = await instance.query({ sql, role, vars: {} }, new AbortController().signal);
  const rows: unknown[][] = [];
  for await (const b of r.batches) rows.push(...b.map((row) => [...row]));
  return { mv: r.headers?.['x-shoal-mv'] ?? null, rows };
}

const tables = (eu = "region = 'eu'") => `
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
    view_sql: 'SELECT region, sum(amount) AS total FROM "orders_csv"."default"."orders" GROUP BY region'
    columns: [{name: region, data_type: varchar}, {name: total, data_type: bigint}]
  - source_id: __derived__
    domain_id: sales
    table: top_regions
    materialize: true
    view_sql: 'SELECT region, total FROM sales.by_region WHERE total >= 20'
    columns: [{name: region, data_type: varchar}, {name: total, data_type: bigint}]
  - source_id: __derived__
    domain_id: sales
    table: eu_orders
    view_sql: "SELECT id, amount, secret FROM orders_csv.default.orders WHERE ${eu}"
    columns:
      - {name: id, data_type: integer}
      - {name: amount, data_type: integer}
      - {name: secret, data_type: varchar, visible_to: [admin]}
  - source_id: __derived__
    domain_id: sales
    table: eu_total
    materialize: true
    definer_rows: true # the EU total of every row, on purpose (eu_orders has RLS for the analyst)
    view_sql: 'SELECT sum(amount) AS total, count(*) AS n FROM sales.eu_orders'
    columns: [{name: total, data_type: bigint}, {name: n, data_type: bigint}]
  - source_id: __derived__
    domain_id: sales
    table: big_regions
    view_sql: 'SELECT region FROM sales.by_region WHERE total > 25'
    columns: [{name: region, data_type: varchar}]
  - source_id: __derived__
    domain_id: sales
    table: local_top
    materialize: true
    mv_consistency: distributed
    view_sql: 'SELECT region, total FROM sales.top_regions'
    columns: [{name: region, data_type: varchar}, {name: total, data_type: bigint}]
`;

const config = (eu?: string) => `
domains: [{id: sales}]
sources: [{id: orders-csv, type: csv, path: orders.csv}]
tables:${tables(eu)}
roles:
  - {id: admin, capabilities: [admin, full_results], domain_access: ["*"]}
  - {id: analyst, capabilities: [], domain_access: [sales]}
rls_rules:
  - {table_id: eu_orders, role_id: analyst, filter: "amount > 15"}
`;

describe('derived tables over derived tables', () => {
  let dir: string;
  let instance: ShoalInstance;
  const writeOrders = (extra = '') => writeFileSync(join(dir, 'orders.csv'), `id,region,amount,secret\n1,eu,10,s1\n2,us,20,\n3,eu,30,s3\n4,apac,5,s4\n${extra}`);
  const model = (text = config()): ShoalConfig => {
    writeFileSync(join(dir, 'shoal.yaml'), text);
    const c = loadConfig({ path: join(dir, 'shoal.yaml') }).config;
    return { ...c, sources: c.sources.map((s) => ({ ...s, path: join(dir, s.path!) })) };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-mv-derived-'));
    writeOrders();
    writeFileSync(join(dir, 'shoal.yaml'), config());
    instance = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'shoal.yaml') }).config, baseDir: dir, mv: { tickMs: 0, resolveMaxAgeMs: 0 } });
  }, 120_000); // starting an instance can be slow on a loaded machine
  afterAll(async () => {
    await instance?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a derived view is a governed view executed live: its own RLS and visibility, computed with the service identity', async () => {
    expect(await read(instance, 'admin', 'SELECT id, amount, secret FROM sales.eu_orders ORDER BY id')).toEqual({ mv: null, rows: [[1, 10, 's1'], [3, 30, 's3']] });
    // the analyst: the view's RLS (amount > 15), and secret is not visible through the view either
    expect((await read(instance, 'analyst', 'SELECT * FROM sales.eu_orders')).rows).toEqual([[3, 30]]);
    await expect(read(instance, 'analyst', 'SELECT secret FROM sales.eu_orders')).rejects.toMatchObject({ code: 'SQL_UNKNOWN_COLUMN' });
    // live: a change to the source shows on the next read
    writeOrders('5,eu,7,s5\n');
    try {
      expect((await read(instance, 'admin', 'SELECT id FROM sales.eu_orders ORDER BY id')).rows).toEqual([[1], [3], [5]]);
    } finally {
      writeOrders();
    }
  });

  it('an MV over an MV that was never materialized computes both live, and says so for each', async () => {
    expect(await read(instance, 'admin', 'SELECT region, total FROM sales.top_regions ORDER BY region')).toEqual({
      mv: 'sales.by_region=live, sales.top_regions=live',
      rows: [['eu', 40], ['us', 20]],
    });
  });

  it('an MV over an MV reads the published snapshot upstream, and its input version is that snapshot id', async () => {
    const mvs = instance.mvs!;
    // refreshed before its upstream has a snapshot: the upstream is computed inline, its inputs are the MV's
    const early = await mvs.refresh('sales.top_regions');
    expect(early).toMatchObject({ outcome: 'refreshed', rowCount: 2 });
    expect((await mvs.row('sales.top_regions'))?.materializedInputVersionKind).toBe('file_stat');

    // its inputs (the file under the inlined upstream) are unchanged: not a candidate
    expect(await mvs.candidates()).not.toContain('sales.top_regions');

    const up = await mvs.refresh('sales.by_region');
    expect(up).toMatchObject({ outcome: 'refreshed' });
    const upId = (up as { snapshotId: string }).snapshotId;
    // the upstream's new snapshot is a new input version downstream
    expect(await mvs.candidates()).toContain('sales.top_regions');
    const down = await mvs.refresh('sales.top_regions');
    expect(down).toMatchObject({ outcome: 'refreshed', rowCount: 2 });
    expect(await mvs.row('sales.top_regions')).toMatchObject({ materializedInputVersion: `mv_snapshot:${upId}`, materializedInputVersionKind: 'mv_snapshot' });
    expect(await mvs.refresh('sales.top_regions')).toMatchObject({ outcome: 'skipped', reason: 'up_to_date' });
    const downId = (down as { snapshotId: string }).snapshotId;
    expect(await read(instance, 'admin', 'SELECT region, total FROM sales.top_regions ORDER BY region')).toEqual({
      mv: `sales.top_regions=snapshot:${downId}`,
      rows: [['eu', 40], ['us', 20]],
    });

    // the source changes: the upstream first, then the MV over it; until then it keeps its snapshot
    writeOrders('5,apac,50,s5\n');
    const order2 = await mvs.candidates();
    expect(order2).toContain('sales.by_region');
    expect(order2).not.toContain('sales.top_regions'); // its input is the upstream snapshot, unchanged so far
    const up2 = (await mvs.refresh('sales.by_region')) as { snapshotId: string };
    expect((await read(instance, 'admin', 'SELECT region FROM sales.top_regions ORDER BY region')).rows).toEqual([['eu'], ['us']]);
    expect(await mvs.candidates()).toContain('sales.top_regions');
    expect(await mvs.refresh('sales.top_regions')).toMatchObject({ outcome: 'refreshed' });
    expect(await mvs.row('sales.top_regions')).toMatchObject({ materializedInputVersion: `mv_snapshot:${up2.snapshotId}` });
    expect((await read(instance, 'admin', 'SELECT region, total FROM sales.top_regions ORDER BY region')).rows).toEqual([['apac', 55], ['eu', 40], ['us', 20]]);
    writeOrders();
  });

  it('the loop tries the MVs others are built on first (config order is not dependency order)', async () => {
    const db = await openSqliteClient(join(dir, 'order-catalog.db'));
    try {
      const fresh = await MvService.open({ db, store: await SnapshotStore.open(join(dir, 'order-store')), localStore: await SnapshotStore.open(join(dir, 'order-local')), engine: instance.engine });
      await fresh.sync(model());
      // config order: by_region, top_regions, eu_total, local_top; depth: 0, 1, 0 (over a view), 2
      expect(await fresh.candidates()).toEqual(['sales.by_region', 'sales.eu_total', 'sales.top_regions', 'sales.local_top']);
    } finally {
      await db.close();
    }
  });

  it('a view over an MV reads its snapshot; an MV over a view computes the view inline', async () => {
    const mvs = instance.mvs!;
    await mvs.refresh('sales.by_region');
    const sid = (await mvs.row('sales.by_region'))!.snapshotId;
    expect(await read(instance, 'admin', 'SELECT region FROM sales.big_regions ORDER BY region')).toEqual({ mv: `sales.by_region=snapshot:${sid}`, rows: [['eu']] });

    expect(await mvs.refresh('sales.eu_total')).toMatchObject({ outcome: 'refreshed', rowCount: 1 });
    expect((await read(instance, 'admin', 'SELECT total, n FROM sales.eu_total')).rows).toEqual([[40, 2]]);
    // its inputs are the view's inputs (the orders file)
    expect((await mvs.row('sales.eu_total'))?.materializedInputVersionKind).toBe('file_stat');
    // the view's definition is part of the MV's: changing the view's SQL changes the MV's definition version
    const before = await mvs.versions(mvs.info('sales.eu_total')!);
    await mvs.sync(model(config("region = 'us'")));
    const after = await mvs.versions(mvs.info('sales.eu_total')!);
    expect(after.definitionVersion).not.toBe(before.definitionVersion);
    expect(after.inputVersion).toBe(before.inputVersion);
    expect(await mvs.refresh('sales.eu_total')).toMatchObject({ outcome: 'refreshed' });
    await mvs.sync(model());
  });

  it('a distributed MV over a shared MV: its own copy of the upstream snapshot', async () => {
    const mvs = instance.mvs!;
    await mvs.refresh('sales.by_region');
    await mvs.refresh('sales.top_regions');
    const up = (await mvs.row('sales.top_regions'))!.snapshotId;
    const r = await mvs.refresh('sales.local_top');
    expect(r).toMatchObject({ outcome: 'refreshed', rowCount: 2 });
    expect(await mvs.versions(mvs.info('sales.local_top')!)).toMatchObject({ inputVersion: `mv_snapshot:${up}` });
    expect(await read(instance, 'admin', 'SELECT region, total FROM sales.local_top ORDER BY region')).toEqual({
      mv: `sales.local_top=local:${(r as { snapshotId: string }).snapshotId}`,
      rows: [['eu', 40], ['us', 20]],
    });
  });
});

describe('derived tables that read themselves', () => {
  const cyclic = (aSql: string) => `
domains: [{id: d}]
sources: [{id: f, type: csv, path: f.csv}]
tables:
  - {source_id: f, domain_id: d, table: t, columns: [{name: id, data_type: integer}]}
  - {source_id: __derived__, domain_id: d, table: a, materialize: true, view_sql: "${aSql}", columns: [{name: id}]}
  - {source_id: __derived__, domain_id: d, table: b, view_sql: "SELECT id FROM d.a", columns: [{name: id}]}
`;

  it('are refused at registration with the cycle and a hint', () => {
    const r = checkConfigText(cyclic('SELECT id FROM d.b'));
    expect(r.ok).toBe(false);
    const errors = r.errors.filter((e) => e.code === 'CONFIG_DERIVED_CYCLE');
    expect(errors.map((e) => e.path)).toEqual(['tables[1].view_sql', 'tables[2].view_sql']);
    expect(errors[0]?.message).toBe('d.a reads itself: d.a -> d.b -> d.a');
    expect(errors[0]?.hint).toMatch(/never .* its own table/);
    const self = checkConfigText(cyclic('SELECT id FROM d.a'));
    expect(self.errors.find((e) => e.code === 'CONFIG_DERIVED_CYCLE')?.message).toBe('d.a reads itself: d.a -> d.a');
    expect(checkConfigText(cyclic('SELECT id FROM f.default.t')).ok).toBe(true);
  });

  it('are unplannable if met anyway (a registry written by something else): every table on the cycle says so', () => {
    const valid = loadConfig({ text: cyclic('SELECT id FROM f.default.t') }).config;
    const model = { ...valid, tables: valid.tables.map((t) => (t.table === 'a' ? { ...t, view_sql: 'SELECT id FROM d.b' } : t)) };
    const planned = planDerivedTables(model);
    expect(planned.get('d.a')).toMatchObject({ materialized: true, engineSql: null, error: 'derived table d.a reads itself: d.a -> d.b -> d.a' });
    expect(planned.get('d.b')).toMatchObject({ materialized: false, engineSql: null, error: 'derived table d.b reads itself: d.b -> d.a -> d.b' });
    expect(planDerivedTables(valid).get('d.b')).toMatchObject({ reads: ['d.a'], error: null });
  });

  it('a distributed MV that computes a non-deterministic view inline is refused', () => {
    const text = `
domains: [{id: d}]
sources: [{id: f, type: csv, path: f.csv}]
tables:
  - {source_id: f, domain_id: d, table: t, columns: [{name: id, data_type: integer}, {name: at, data_type: timestamp}]}
  - {source_id: __derived__, domain_id: d, table: recent, view_sql: "SELECT id FROM f.default.t WHERE at > now()", columns: [{name: id}]}
  - {source_id: __derived__, domain_id: d, table: m, materialize: true, mv_consistency: distributed, view_sql: "SELECT count(*) AS n FROM d.recent", columns: [{name: n}]}
  - {source_id: __derived__, domain_id: d, table: s, materialize: true, view_sql: "SELECT count(*) AS n FROM d.recent", columns: [{name: n}]}
`;
    const r = checkConfigText(text);
    const e = r.errors.find((x) => x.code === 'CONFIG_MV_REJECTED');
    expect(e?.path).toBe('tables[2].view_sql');
    expect(e?.message).toMatch(/computes the view d\.recent inline.*deterministic/);
    expect(r.errors.filter((x) => x.code === 'CONFIG_MV_REJECTED')).toHaveLength(1); // the shared one is admitted
  });
});
