import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/shoal/config/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { buildApp } from '../../../src/shoal/server/app.js';
import { mvAdminPlugin } from '../../../src/shoal/server/mv-admin-plugin.js';

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
domains: [{id: sales}]
sources: [{id: orders-csv, type: csv, path: orders.csv}]
tables:
  - {source_id: orders-csv, domain_id: sales, table: orders, columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}, {name: amount, data_type: integer}]}
  - source_id: __derived__
    domain_id: sales
    table: totals
    materialize: true
    view_sql: 'SELECT region, sum(amount) AS total FROM "orders_csv"."default"."orders" GROUP BY region'
    columns: [{name: region, data_type: varchar}, {name: total, data_type: bigint}]
roles:
  - {id: admin, capabilities: [admin], domain_access: ["*"]}
  - {id: analyst, capabilities: [], domain_access: [sales]}
`);
    instance = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'shoal.yaml') }).config, baseDir: dir, mv: { tickMs: 0 } });
    app = await buildApp({ service: instance, logger: false, plugins: [mvAdminPlugin(instance)] });
  });
  afterAll(async () => {
    await app?.close();
    await instance?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('needs an admin role', async () => {
    expect((await call('GET', '/admin/mv', '')).body).toMatchObject({ error: { code: 'ROLE_REQUIRED' } });
    expect(await call('GET', '/admin/mv', 'analyst')).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } });
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

  it('an unknown MV is a 404 on every route', async () => {
    for (const [method, url] of [['GET', '/admin/mv/sales.nope'], ['GET', '/admin/mv/sales.orders/log'], ['POST', '/admin/mv/sales.nope/refresh']] as const) {
      expect(await call(method, url)).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    }
  });
});
