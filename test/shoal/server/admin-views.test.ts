/** POST /admin/tables refuses a view or MV that would launder rows (422), and accepts one with its own RLS or definer_rows. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { adminPlugin } from '../../../src/shoal/server/admin-plugin.js';
import { buildApp } from '../../../src/shoal/server/app.js';

describe('POST /admin/tables: views and MVs cannot launder rows', () => {
  let dir: string;
  let instance: ShoalInstance;
  let app: FastifyInstance;
  const view = (table: string, extra: object = {}) => ({
    source_id: '__derived__',
    domain_id: 'sales',
    table,
    materialize: true,
    view_sql: 'SELECT region, sum(amount) AS total FROM sales.orders GROUP BY region',
    columns: [{ name: 'region', data_type: 'varchar' }, { name: 'total', data_type: 'bigint' }],
    ...extra,
  });
  const post = (payload: object) => app.inject({ method: 'POST', url: '/admin/tables', headers: { 'x-provisa-role': 'admin' }, payload });
  const sql = async (role: string, text: string) => {
    const r = await app.inject({ method: 'POST', url: '/data/sql', headers: { 'x-provisa-role': role }, payload: { sql: text } });
    return r.json() as { rows: unknown[][] };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-admin-views-'));
    writeFileSync(join(dir, 'orders.csv'), 'id,region,amount\n1,eu,10\n2,us,20\n3,eu,5\n');
    writeFileSync(join(dir, 'shoal.yaml'), `
auth: {provider: none}
control_plane: {catalog: registry} # the admin API owns the catalog: these tests register through it
domains: [{id: sales}]
sources: [{id: orders-csv, type: csv, path: orders.csv}]
tables:
  - {source_id: orders-csv, domain_id: sales, table: orders, columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}, {name: amount, data_type: integer}]}
roles:
  - {id: admin, capabilities: [admin], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development], domain_access: [sales]}
rls_rules:
  - {table_id: orders, role_id: analyst, filter: "region = 'eu'"}
`);
    instance = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'shoal.yaml') }).config, baseDir: dir, mv: { tickMs: 0 }, hot: false, resultCache: false });
    app = await buildApp({ service: instance, logger: false, plugins: [adminPlugin(instance)] });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await instance?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a view over a table with RLS and no RLS of its own is 422, naming the base table and the role; nothing is registered', async () => {
    for (const materialize of [true, false]) {
      const r = await post(view('totals', { materialize }));
      expect(r.statusCode).toBe(422);
      expect(r.json()).toMatchObject({ error: { code: 'VIEW_LAUNDERS_ROWS', message: expect.stringContaining('sales.orders (RLS)'), hint: expect.stringContaining('definer_rows') } });
      expect(r.json().error.message).toMatch(/: analyst$/);
    }
    expect((await instance.registry.snapshot()).catalog.tables.map((t) => t.table)).toEqual(['orders']);
  });

  it('is registered with its own per-role RLS in the same request, and the analyst reads only its rows', async () => {
    const r = await post({ ...view('eu_totals'), rls_rules: [{ role_id: 'analyst', filter: "region = 'eu'" }] });
    expect(r.statusCode).toBe(200);
    const rules = (await instance.registry.snapshot()).catalog.rls_rules.filter((x) => x.table_id === 'eu_totals');
    expect(rules).toEqual([{ table_id: 'eu_totals', role_id: 'analyst', filter: "region = 'eu'" }]);
    expect((await sql('analyst', 'SELECT region, total FROM sales.eu_totals')).rows).toEqual([['eu', 15]]);
  });

  it('is registered with definer_rows: true, and then serves the definer\'s rows to every reader', async () => {
    const r = await post(view('all_totals', { definer_rows: true }));
    expect(r.statusCode).toBe(200);
    expect((await sql('analyst', 'SELECT region, total FROM sales.all_totals ORDER BY region')).rows).toEqual([['eu', 15], ['us', 20]]);
  });

  it('a malformed rls_rules entry is 400', async () => {
    const r = await post({ ...view('x'), rls_rules: [{ role_id: 'analyst', filter: 'true', table_id: 'orders' }] });
    expect(r.statusCode).toBe(400);
  });
});
