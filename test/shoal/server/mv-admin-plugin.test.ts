import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { buildApp } from '../../../src/shoal/server/app.js';
import { adminPlugin } from '../../../src/shoal/server/admin-plugin.js';
import { mvAdminPlugin } from '../../../src/shoal/server/mv-admin-plugin.js';
import { openSqliteClient } from '../../../src/core/sql/sqlite-client.js';
import type { SqlClient } from '../../../src/core/sql/sql-client.js';
import { MvService } from '../../../src/shoal/mv/mv-service.js';
import { SnapshotStore } from '../../../src/shoal/mv/snapshot-store.js';

describe('the /admin/mv API', () => {
  let dir: string;
  let instance: ShoalInstance;
  let app: FastifyInstance;
  const as = (role: string) => (role ? { 'x-provisa-role': role } : {});
  const call = async (method: 'GET' | 'POST', url: string, role = 'admin') => {
    const r = await app.inject({ method, url, headers: as(role) });
    return { status: r.statusCode, body: r.json() as Record<string, unknown> };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-mv-admin-'));
    writeFileSync(join(dir, 'orders.csv'), 'id,region,amount\n1,eu,10\n2,us,20\n');
    writeFileSync(join(dir, 'shoal.yaml'), `
auth: {provider: none}
control_plane: {catalog: registry} # the admin API owns the catalog: these tests register through it
domains: [{id: sales}]
sources: [{id: orders-csv, type: csv, path: orders.csv}]
tables:
  - {source_id: orders-csv, domain_id: sales, table: orders, columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}, {name: amount, data_type: integer}]}
  - source_id: __derived__
    domain_id: sales
    table: totals
    materialize: true
    definer_rows: true # every region's total, whoever reads it (orders gets a mask below)
    view_sql: 'SELECT region, sum(amount) AS total FROM "orders_csv"."default"."orders" GROUP BY region'
    columns: [{name: region, data_type: varchar}, {name: total, data_type: bigint}]
roles:
  - {id: admin, capabilities: [admin], domain_access: ["*"]}
  - {id: analyst, capabilities: [], domain_access: [sales]}
`);
    instance = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'shoal.yaml') }).config, baseDir: dir, mv: { tickMs: 0 } });
    app = await buildApp({ service: instance, logger: false, plugins: [mvAdminPlugin(instance)] });
  }, 120_000); // starting an instance can be slow on a loaded machine
  afterAll(async () => {
    await app?.close();
    await instance?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('needs an admin role', async () => {
    expect((await call('GET', '/admin/mv', '')).body).toMatchObject({ error: { code: 'ROLE_REQUIRED' } });
    expect(await call('GET', '/admin/mv', 'analyst')).toMatchObject({ status: 403, body: { error: { code: 'CAPABILITY_MISSING' } } });
    expect(await call('POST', '/admin/mv/sales.totals/refresh', 'nobody')).toMatchObject({ status: 403, body: { error: { code: 'ROLE_UNKNOWN' } } });
  });

  it('lists MVs with their catalog row and how readers resolve them', async () => {
    const { status, body } = await call('GET', '/admin/mv');
    expect(status).toBe(200);
    expect(body.writer).toBe(instance.mvs!.writer);
    expect(body.mvs).toEqual([
      expect.objectContaining({
        id: 'sales.totals',
        consistency: 'shared',
        source_tables: ['sales.orders'],
        serving: { kind: 'live', reason: 'never_materialized' },
        running: null,
        row: expect.objectContaining({ id: 'sales.totals', status: 'stale', snapshotId: null }),
      }),
    ]);
  });

  it('refreshes on request, dedups an unchanged one, forces on ?force=true, and logs every outcome', async () => {
    const first = await call('POST', '/admin/mv/sales.totals/refresh');
    expect(first).toMatchObject({ status: 200, body: { id: 'sales.totals', outcome: 'refreshed', rowCount: 2, epoch: 1 } });
    expect(await call('POST', '/admin/mv/SALES.TOTALS/refresh')).toMatchObject({ body: { outcome: 'skipped', reason: 'up_to_date' } });
    const forced = await call('POST', '/admin/mv/sales.totals/refresh?force=true');
    expect(forced.body).toMatchObject({ outcome: 'refreshed', epoch: 2 });
    expect(forced.body.snapshotId).not.toBe(first.body.snapshotId);
    expect(await call('POST', '/admin/mv/sales.totals/refresh?force=yes')).toMatchObject({ status: 400, body: { error: { code: 'BAD_REQUEST' } } });

    const row = await call('GET', '/admin/mv/sales.totals');
    expect(row.body).toMatchObject({ id: 'sales.totals', status: 'fresh', snapshotId: forced.body.snapshotId, writer: null, rowCount: 2 });
    const log = await call('GET', '/admin/mv/sales.totals/log');
    expect((log.body.entries as { outcome: string }[]).map((e) => e.outcome)).toEqual(['refreshed', 'skipped', 'refreshed']);
    expect(((await call('GET', '/admin/mv/sales.totals/log?limit=1')).body.entries as unknown[]).length).toBe(1);
    expect(await call('GET', '/admin/mv/sales.totals/log?limit=0')).toMatchObject({ status: 400 });
    const listed = (await call('GET', '/admin/mv')).body.mvs as { serving: unknown }[];
    expect(listed[0]?.serving).toMatchObject({ kind: 'snapshot', snapshotId: forced.body.snapshotId });
  });

  it('registration through POST /admin/tables runs the determinism check: a distributed non-deterministic MV is 422, the same as shared is admitted and served', async () => {
    const admin = await buildApp({ service: instance, logger: false, plugins: [adminPlugin(instance), mvAdminPlugin(instance)] });
    try {
      const register = (table: string, tier: string, viewSql: string) =>
        admin.inject({
          method: 'POST',
          url: '/admin/tables',
          headers: { 'x-provisa-role': 'admin' },
          payload: { source_id: '__derived__', domain_id: 'sales', table, materialize: true, mv_consistency: tier, view_sql: viewSql, columns: [{ name: 'n', data_type: 'bigint' }] },
        });
      const nondeterministic = 'SELECT count(*) AS n FROM "orders_csv"."default"."orders" WHERE random() < 0.5';
      const refused = await register('sampled', 'distributed', nondeterministic);
      expect(refused.statusCode).toBe(422);
      expect(refused.json()).toMatchObject({ error: { code: 'MV_REJECTED', message: expect.stringMatching(/deterministic/) } });
      expect((await register('sampled', 'shared', nondeterministic)).statusCode).toBe(200);
      expect((await register('counted', 'distributed', 'SELECT count(*) AS n FROM "orders_csv"."default"."orders"')).statusCode).toBe(200);
      await instance.refresh();
      const ids = ((await admin.inject({ method: 'GET', url: '/admin/mv', headers: { 'x-provisa-role': 'admin' } })).json() as { mvs: { id: string }[] }).mvs.map((m) => m.id);
      expect(ids).toEqual(expect.arrayContaining(['sales.sampled', 'sales.counted']));
      for (const t of ['sampled', 'counted']) expect((await admin.inject({ method: 'DELETE', url: `/admin/tables/sales.${t}`, headers: { 'x-provisa-role': 'admin' } })).statusCode).toBe(200);
      await instance.refresh();
    } finally {
      await admin.close();
    }
  });

  it('registration through POST /admin/tables refuses a regex mask outside the certified subset, naming the key path; a certified one masks fail-closed', async () => {
    const admin = await buildApp({ service: instance, logger: false, plugins: [adminPlugin(instance), mvAdminPlugin(instance)] });
    try {
      const register = (pattern: string, replace: string) =>
        admin.inject({
          method: 'POST',
          url: '/admin/tables',
          headers: { 'x-provisa-role': 'admin' },
          payload: {
            source_id: 'orders-csv', domain_id: 'sales', table: 'orders',
            columns: [{ name: 'id', data_type: 'integer' }, { name: 'region', data_type: 'varchar', mask_type: 'regex', mask_pattern: pattern, mask_replace: replace, unmasked_to: ['admin'] }, { name: 'amount', data_type: 'integer' }],
          },
        });
      const before = await instance.registry.epoch();
      for (const [pattern, replace, key] of [['^e', '*'], ['^(e|u).*$', '$1*'], ['^(.).*$', '$2']].map(([p, r]) => [p, r, r === '$2' ? 'mask_replace' : 'mask_pattern'])) {
        const refused = await register(pattern!, replace!);
        expect(refused.statusCode, `${pattern} → ${replace}`).toBeGreaterThanOrEqual(400);
        expect(refused.statusCode).toBeLessThan(500);
        expect(refused.body).toContain(key!);
      }
      expect(await instance.registry.epoch()).toBe(before);
      // certified: 'eu' matches and keeps its first letter; 'us' does not, and is not passed through raw
      expect((await register('^(.)u$', '$1*')).statusCode).toBe(200);
      await instance.refresh();
      const r = await instance.query({ sql: 'SELECT id, region FROM sales.orders ORDER BY id', role: 'analyst', vars: {} }, new AbortController().signal);
      const rows: unknown[][] = [];
      for await (const b of r.batches) rows.push(...b.map((x) => [...x]));
      expect(rows).toEqual([[1, 'e*'], [2, '***']]); // 'us' does not match: masked entirely
    } finally {
      // the table as the other tests expect it: unmasked
      await admin.inject({
        method: 'POST', url: '/admin/tables', headers: { 'x-provisa-role': 'admin' },
        payload: { source_id: 'orders-csv', domain_id: 'sales', table: 'orders', columns: [{ name: 'id', data_type: 'integer' }, { name: 'region', data_type: 'varchar' }, { name: 'amount', data_type: 'integer' }] },
      });
      await instance.refresh();
      await admin.close();
    }
  });

  it('registration through POST /admin/tables refuses a derived table that reads itself: 422 DERIVED_CYCLE naming the cycle, nothing registered', async () => {
    const admin = await buildApp({ service: instance, logger: false, plugins: [adminPlugin(instance), mvAdminPlugin(instance)] });
    try {
      const register = (table: string, viewSql: string) =>
        admin.inject({
          method: 'POST',
          url: '/admin/tables',
          headers: { 'x-provisa-role': 'admin' },
          payload: { source_id: '__derived__', domain_id: 'sales', table, view_sql: viewSql, definer_rows: true, columns: [{ name: 'n', data_type: 'bigint' }] }, // orders is masked by now
        });
      expect((await register('v1', 'SELECT count(*) AS n FROM "orders_csv"."default"."orders"')).statusCode).toBe(200);
      expect((await register('v2', 'SELECT n FROM sales.v1')).statusCode).toBe(200);
      const before = await instance.registry.epoch();
      const refused = await register('v1', 'SELECT n FROM sales.v2');
      expect(refused.statusCode).toBe(422);
      expect(refused.json()).toMatchObject({ error: { code: 'DERIVED_CYCLE', message: expect.stringMatching(/(sales\.v[12]) reads itself: \1 -> sales\.v[12] -> \1/) } });
      expect(await instance.registry.epoch()).toBe(before);
      for (const t of ['v2', 'v1']) expect((await admin.inject({ method: 'DELETE', url: `/admin/tables/sales.${t}`, headers: { 'x-provisa-role': 'admin' } })).statusCode).toBe(200);
      await instance.refresh();
    } finally {
      await admin.close();
    }
  });

  it('an unknown MV is a 404 on every route', async () => {
    for (const [method, url] of [['GET', '/admin/mv/sales.nope'], ['GET', '/admin/mv/sales.orders/log'], ['POST', '/admin/mv/sales.nope/refresh']] as const) {
      expect(await call(method, url)).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    }
  });
});

/**
 * Progress and timing of refreshes in flight, the duration of finished ones, and the MV series of
 * /metrics: an MV service of our own over the instance's engine, whose refreshes wait on gates we
 * open, and whose clock we move.
 */
describe('the /admin/mv API and /metrics while refreshes run', () => {
  let dir: string;
  let instance: ShoalInstance;
  let db: SqlClient;
  let mvs: MvService;
  let app: FastifyInstance;
  let now = 50_000;
  let commitGate: Gate | undefined;
  let buildGate: Gate | undefined;
  let moving = false;
  let n = 0;
  const writeOrders = (amount: number) => writeFileSync(join(dir, 'orders.csv'), `id,region,amount\n1,eu,${amount}\n2,us,20\n`);
  const get = async (url: string) => (await app.inject({ method: 'GET', url, headers: { 'x-provisa-role': 'admin' } })).json() as Record<string, unknown>;
  const metrics = async () => (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const series = (text: string, name: string, labels: string): number | undefined => {
    const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-mv-progress-'));
    writeOrders(10);
    writeFileSync(join(dir, 'shoal.yaml'), `
auth: {provider: none}
domains: [{id: sales}]
sources: [{id: orders-csv, type: csv, path: ${join(dir, 'orders.csv')}}]
tables:
  - {source_id: orders-csv, domain_id: sales, table: orders, columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}, {name: amount, data_type: integer}]}
  - source_id: __derived__
    domain_id: sales
    table: totals
    materialize: true
    view_sql: 'SELECT region, sum(amount) AS total FROM "orders_csv"."default"."orders" GROUP BY region'
    columns: [{name: region, data_type: varchar}, {name: total, data_type: bigint}]
  - source_id: __derived__
    domain_id: sales
    table: local_totals
    materialize: true
    mv_consistency: distributed
    view_sql: 'SELECT region, sum(amount) AS total FROM "orders_csv"."default"."orders" GROUP BY region'
    columns: [{name: region, data_type: varchar}, {name: total, data_type: bigint}]
roles: [{id: admin, capabilities: [admin], domain_access: ["*"]}]
`);
    const config = loadConfig({ path: join(dir, 'shoal.yaml') }).config;
    instance = await ShoalInstance.start({ config, baseDir: dir, mv: { tickMs: 0 } });
    db = await openSqliteClient(join(dir, 'progress-catalog.db'));
    mvs = await MvService.open({
      db,
      store: await SnapshotStore.open(join(dir, 'store')),
      localStore: await SnapshotStore.open(join(dir, 'local')),
      engine: instance.engine,
      writer: 'w1',
      now: () => now,
      beforeCommit: async () => {
        await commitGate?.wait();
      },
      afterLocalBuild: async () => {
        if (moving) writeOrders(100 + n++);
        await buildGate?.wait();
      },
    });
    await mvs.sync(config);
    app = await buildApp({ service: instance, logger: false, plugins: [mvAdminPlugin({ registry: instance.registry, mvs })] });
  }, 120_000); // starting an instance can be slow on a loaded machine
  afterAll(async () => {
    await app?.close();
    await db?.close();
    await instance?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a shared refresh in flight shows its start, elapsed time, phase and rows written; a finished one its duration from the log', async () => {
    commitGate = gate();
    const pending = mvs.refresh('sales.totals');
    await commitGate.reached;
    now += 1_234;
    const listed = ((await get('/admin/mv')).mvs as Record<string, unknown>[]).find((m) => m.id === 'sales.totals')!;
    const running = { mvId: 'sales.totals', consistency: 'shared', writer: 'w1#1', phase: 'committing', attempt: 1, startedAtMs: 50_000, elapsedMs: 1_234, rowsWritten: 2 };
    expect(listed.running).toMatchObject(running);
    expect(listed.last_refresh).toBeNull();
    const one = await get('/admin/mv/sales.totals');
    expect(one).toMatchObject({ id: 'sales.totals', status: 'refreshing', writer: 'w1', running, last_refresh: null });
    expect(series(await metrics(), 'shoal_mv_refresh_running', 'mv="sales.totals"')).toBe(1);

    commitGate.open();
    const done = await pending;
    expect(done).toMatchObject({ outcome: 'refreshed' });
    const after = await get('/admin/mv/sales.totals');
    expect(after).toMatchObject({ status: 'fresh', running: null });
    expect(after.last_refresh).toMatchObject({ outcome: 'refreshed', rowCount: 2, writer: 'w1', snapshotId: (done as { snapshotId: string }).snapshotId });
    expect((after.last_refresh as { durationMs: number }).durationMs).toBeGreaterThanOrEqual(0);

    const text = await metrics();
    expect(series(text, 'shoal_mv_refresh_running', 'mv="sales.totals"')).toBe(0);
    expect(series(text, 'shoal_mv_refresh_total', 'mv="sales.totals",outcome="refreshed"')).toBe(1);
    // this instance's wall time for the attempt (its clock moved 1.234 s meanwhile)
    expect(series(text, 'shoal_mv_refresh_seconds_total', 'mv="sales.totals",outcome="refreshed"')).toBe(1.234);
    expect(series(text, 'shoal_mv_refresh_last_seconds', 'mv="sales.totals"')).toBe(1.234);
    commitGate = undefined;

    // a skip is counted under its own outcome, and does not replace the last finished attempt
    expect(await mvs.refresh('sales.totals')).toMatchObject({ outcome: 'skipped' });
    expect(series(await metrics(), 'shoal_mv_refresh_total', 'mv="sales.totals",outcome="skipped"')).toBe(1);
    expect((await get('/admin/mv/sales.totals')).last_refresh).toMatchObject({ outcome: 'refreshed' });
  });

  it('a distributed refresh in flight shows its attempt and phase; /admin/mv/:id reports it without a catalog row', async () => {
    buildGate = gate();
    const pending = mvs.refresh('sales.local_totals');
    await buildGate.reached;
    now += 10;
    const one = await get('/admin/mv/sales.local_totals');
    expect(one).toMatchObject({
      id: 'sales.local_totals',
      consistency: 'distributed',
      serving: { kind: 'live', reason: 'never_materialized' },
      running: { mvId: 'sales.local_totals', consistency: 'distributed', writer: 'w1', phase: 'writing_snapshot', attempt: 1, elapsedMs: 10, rowsWritten: 2 },
      last_refresh: null,
    });
    buildGate.open();
    buildGate = undefined;
    const done = await pending;
    expect(done).toMatchObject({ outcome: 'refreshed' });
    expect(await get('/admin/mv/sales.local_totals')).toMatchObject({
      serving: { kind: 'snapshot', snapshotId: (done as { snapshotId: string }).snapshotId },
      running: null,
      last_refresh: { outcome: 'refreshed', attempts: 1, durationMs: 10, rowCount: 2 },
    });
  });

  it('a distributed MV whose source never settles: not quiescent on /metrics, per MV, and in the admin stats', async () => {
    expect(series(await metrics(), 'shoal_mv_not_quiescent_total', 'mv="sales.local_totals"')).toBe(0);
    moving = true;
    writeOrders(99);
    try {
      expect(await mvs.refresh('sales.local_totals')).toMatchObject({ outcome: 'failed', error: expect.stringContaining('changed during each of 3 materializations') });
    } finally {
      moving = false;
    }
    const text = await metrics();
    expect(series(text, 'shoal_mv_not_quiescent_total', 'mv="sales.local_totals"')).toBe(1);
    expect(series(text, 'shoal_mv_refresh_total', 'mv="sales.local_totals",outcome="failed"')).toBe(1);
    expect(text).toContain('# TYPE shoal_mv_not_quiescent_total counter');
    expect((await get('/admin/mv')).stats).toMatchObject({ notQuiescent: 1, notQuiescentByMv: { 'sales.local_totals': 1 } });
    expect((await get('/admin/mv/sales.local_totals')).last_refresh).toMatchObject({ outcome: 'failed', attempts: 3 });
  });
});

interface Gate {
  /** Resolves when the refresh reaches the gate. */
  readonly reached: Promise<void>;
  wait(): Promise<void>;
  open(): void;
}

function gate(): Gate {
  let reach!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((r) => (reach = r));
  const opened = new Promise<void>((r) => (release = r));
  return {
    reached,
    wait: () => {
      reach();
      return opened;
    },
    open: () => release(),
  };
}
