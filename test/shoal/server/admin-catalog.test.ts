/**
 * The admin API and who owns the catalog: with control_plane.catalog: config every catalog
 * mutation is 409 CATALOG_OWNED_BY_CONFIG (reads still work); with registry the admin API has full
 * CRUD over roles, RLS rules and columns, and If-Match on the epoch guards against lost updates.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { adminPlugin } from '../../../src/shoal/server/admin-plugin.js';
import { buildApp } from '../../../src/shoal/server/app.js';

const CATALOG = `domains: [{id: sales}]
sources: [{id: orders-csv, type: csv, path: orders.csv}]
tables:
  - {source_id: orders-csv, domain_id: sales, table: orders, columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}, {name: amount, data_type: integer}]}
roles:
  - {id: admin, capabilities: [admin], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development], domain_access: [sales]}
rls_rules:
  - {table_id: orders, role_id: analyst, filter: "region = 'eu'"}
`;

async function startApp(dir: string, owner: 'config' | 'registry' | undefined, registry: string) {
  writeFileSync(join(dir, `${registry}.yaml`), `auth: {provider: none}
control_plane: {tenant_url: "sqlite:///${registry}.db"${owner ? `, catalog: ${owner}` : ''}}
${CATALOG}`);
  const instance = await ShoalInstance.start({ config: loadConfig({ path: join(dir, `${registry}.yaml`) }).config, baseDir: dir, mv: { tickMs: 0 }, hot: false, resultCache: false });
  const app = await buildApp({ service: instance, logger: false, plugins: [adminPlugin(instance)] });
  return { instance, app };
}

const admin = { 'x-provisa-role': 'admin' };

describe('the admin API and the catalog owner', () => {
  let dir: string;
  const opened: { instance: ShoalInstance; app: FastifyInstance }[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-admin-catalog-'));
    writeFileSync(join(dir, 'orders.csv'), 'id,region,amount\n1,eu,10\n2,us,20\n3,eu,5\n');
  });
  afterAll(async () => {
    for (const o of opened) {
      await o.app.close();
      await o.instance.close();
    }
    rmSync(dir, { recursive: true, force: true });
  });
  const open = async (owner: 'config' | 'registry' | undefined, registry: string) => {
    const o = await startApp(dir, owner, registry);
    opened.push(o);
    return o.app;
  };
  const sql = async (app: FastifyInstance, role: string, text: string) => {
    const r = await app.inject({ method: 'POST', url: '/data/sql', headers: { 'x-provisa-role': role }, payload: { sql: text } });
    return (r.json() as { rows: unknown[][] }).rows;
  };

  it('config mode (the default): every catalog mutation is 409 CATALOG_OWNED_BY_CONFIG with a hint, nothing is written, reads work', async () => {
    const app = await open(undefined, 'owned-by-config');
    const epoch = (await app.inject({ url: '/admin/epoch', headers: admin })).json() as { epoch: number; catalog: string };
    expect(epoch.catalog).toBe('config');
    const mutations = [
      { method: 'POST', url: '/admin/sources', payload: { id: 'x', type: 'csv', path: join(dir, 'orders.csv') } },
      { method: 'DELETE', url: '/admin/sources/orders-csv' },
      { method: 'POST', url: '/admin/tables', payload: { source_id: 'orders-csv', domain_id: 'sales', table: 'orders', columns: [{ name: 'id' }] } },
      { method: 'DELETE', url: '/admin/tables/sales.orders' },
      { method: 'PUT', url: '/admin/tables/orders/columns/note', payload: { data_type: 'varchar' } },
      { method: 'DELETE', url: '/admin/tables/orders/columns/amount' },
      { method: 'POST', url: '/admin/roles', payload: { id: 'viewer' } },
      { method: 'DELETE', url: '/admin/roles/analyst' },
      { method: 'POST', url: '/admin/rls', payload: { table_id: 'orders', role_id: 'analyst', filter: 'true' } },
      { method: 'PUT', url: '/admin/rls/table/orders/analyst', payload: { filter: 'true' } },
      { method: 'DELETE', url: '/admin/rls/table/orders/analyst' },
    ] as const;
    for (const m of mutations) {
      const r = await app.inject({ ...m, headers: admin });
      expect(r.statusCode, `${m.method} ${m.url}`).toBe(409);
      expect(r.json()).toMatchObject({ error: { code: 'CATALOG_OWNED_BY_CONFIG', hint: expect.stringContaining('shoal registry apply') } });
    }
    expect(((await app.inject({ url: '/admin/epoch', headers: admin })).json() as { epoch: number }).epoch).toBe(epoch.epoch);
    expect((await app.inject({ url: '/admin/rls', headers: admin })).json()).toEqual([{ table_id: 'orders', role_id: 'analyst', filter: "region = 'eu'" }]);
    expect((await app.inject({ url: '/admin/roles', headers: admin })).statusCode).toBe(200);
    // the ownership check never bypasses authorization
    expect((await app.inject({ method: 'DELETE', url: '/admin/roles/analyst', headers: { 'x-provisa-role': 'analyst' } })).statusCode).toBe(403);
  });

  it('registry mode: roles are listed, created, updated and deleted', async () => {
    const app = await open('registry', 'roles');
    expect(((await app.inject({ url: '/admin/roles', headers: admin })).json() as { id: string }[]).map((r) => r.id)).toEqual(['admin', 'analyst']);
    expect((await app.inject({ method: 'POST', url: '/admin/roles', headers: admin, payload: { id: 'viewer', capabilities: ['query_development'], domain_access: ['sales'] } })).statusCode).toBe(200);
    expect((await sql(app, 'viewer', 'SELECT id FROM sales.orders ORDER BY id')).map((r) => r[0])).toEqual([1, 2, 3]);
    const put = await app.inject({ method: 'PUT', url: '/admin/roles/viewer', headers: admin, payload: { capabilities: ['query_development'], domain_access: ['sales'], max_rows: 1 } });
    expect(put.statusCode).toBe(200);
    expect((await app.inject({ url: '/admin/roles/viewer', headers: admin })).json()).toMatchObject({ id: 'viewer', max_rows: 1 });
    expect((await app.inject({ method: 'PUT', url: '/admin/roles/nobody', headers: admin, payload: {} })).statusCode).toBe(404);
    // a role its RLS rules use cannot be dropped; an unused one can
    expect((await app.inject({ method: 'DELETE', url: '/admin/roles/analyst', headers: admin })).json()).toMatchObject({ error: { code: 'REGISTRY_IN_USE' } });
    expect((await app.inject({ method: 'DELETE', url: '/admin/roles/viewer', headers: admin })).statusCode).toBe(200);
    expect((await app.inject({ url: '/admin/roles/viewer', headers: admin })).statusCode).toBe(404);
    const gone = await app.inject({ method: 'POST', url: '/data/sql', headers: { 'x-provisa-role': 'viewer' }, payload: { sql: 'SELECT 1' } });
    expect(gone.statusCode).toBe(403);
  });

  it('registry mode: RLS rules are listed, updated and deleted, and the data API serves each change at once', async () => {
    const app = await open('registry', 'rls');
    const ids = async () => (await sql(app, 'analyst', 'SELECT id FROM sales.orders ORDER BY id')).map((r) => r[0]);
    expect(await ids()).toEqual([1, 3]);
    expect((await app.inject({ url: '/admin/rls', headers: admin })).json()).toEqual([{ table_id: 'orders', role_id: 'analyst', filter: "region = 'eu'" }]);
    const put = await app.inject({ method: 'PUT', url: '/admin/rls/table/sales.orders/analyst', headers: admin, payload: { filter: "region = 'us'" } });
    expect(put.statusCode).toBe(200);
    expect(await ids()).toEqual([2]);
    expect((await app.inject({ method: 'PUT', url: '/admin/rls/table/orders/admin', headers: admin, payload: { filter: 'true' } })).statusCode).toBe(404);
    expect((await app.inject({ method: 'PUT', url: '/admin/rls/table/orders/analyst', headers: admin, payload: { filter: 'true', extra: 1 } })).statusCode).toBe(400);
    expect((await app.inject({ method: 'DELETE', url: '/admin/rls/table/orders/analyst', headers: admin })).statusCode).toBe(200);
    expect((await app.inject({ url: '/admin/rls', headers: admin })).json()).toEqual([]);
    expect(await ids()).toEqual([1, 2, 3]);
    expect((await app.inject({ method: 'DELETE', url: '/admin/rls/table/orders/analyst', headers: admin })).statusCode).toBe(404);
    // a domain rule is addressed by its domain
    expect((await app.inject({ method: 'POST', url: '/admin/rls', headers: admin, payload: { domain_id: 'sales', role_id: 'analyst', filter: 'amount > 6' } })).statusCode).toBe(200);
    expect(await ids()).toEqual([1, 2]);
    expect((await app.inject({ method: 'DELETE', url: '/admin/rls/domain/sales/analyst', headers: admin })).statusCode).toBe(200);
    expect((await app.inject({ method: 'DELETE', url: '/admin/rls/view/sales/analyst', headers: admin })).statusCode).toBe(404);
  });

  it('registry mode: columns are added, updated and deleted', async () => {
    const app = await open('registry', 'columns');
    const columns = async () => ((await app.inject({ url: '/admin/tables/sales.orders', headers: admin })).json() as { columns: { name: string; visible_to?: string[] }[] }).columns;
    expect((await columns()).map((c) => c.name)).toEqual(['id', 'region', 'amount']);
    expect((await app.inject({ method: 'PUT', url: '/admin/tables/orders/columns/amount', headers: admin, payload: { data_type: 'integer', visible_to: ['admin'] } })).statusCode).toBe(200);
    expect((await columns()).find((c) => c.name === 'amount')!.visible_to).toEqual(['admin']);
    const hidden = await app.inject({ method: 'POST', url: '/data/sql', headers: { 'x-provisa-role': 'analyst' }, payload: { sql: 'SELECT amount FROM sales.orders' } });
    expect(hidden.json()).toMatchObject({ error: { code: 'SQL_UNKNOWN_COLUMN' } });
    expect((await app.inject({ method: 'DELETE', url: '/admin/tables/orders/columns/amount', headers: admin })).statusCode).toBe(200);
    expect((await columns()).map((c) => c.name)).toEqual(['id', 'region']);
    expect((await app.inject({ method: 'DELETE', url: '/admin/tables/orders/columns/amount', headers: admin })).statusCode).toBe(404);
    // a column change is checked against the whole catalog: a truncate mask on a text column is refused, nothing written
    const bad = await app.inject({ method: 'PUT', url: '/admin/tables/orders/columns/region', headers: admin, payload: { data_type: 'varchar', mask_type: 'truncate', mask_precision: 'day' } });
    expect(bad.statusCode).toBe(409);
    expect((await columns()).find((c) => c.name === 'region')).toEqual({ name: 'region', data_type: 'varchar', unmasked_to: [] });
  });

  it('registry mode: If-Match on the epoch refuses a stale mutation (412) and lets a current one through; reads carry the epoch as ETag', async () => {
    const app = await open('registry', 'if-match');
    const read = await app.inject({ url: '/admin/rls', headers: admin });
    const etag = read.headers.etag as string;
    expect(etag).toMatch(/^"\d+"$/);
    const epoch = Number(etag.replace(/"/g, ''));
    // someone else changes the catalog meanwhile
    expect((await app.inject({ method: 'POST', url: '/admin/roles', headers: admin, payload: { id: 'other' } })).statusCode).toBe(200);
    const stale = await app.inject({ method: 'PUT', url: '/admin/rls/table/orders/analyst', headers: { ...admin, 'if-match': etag }, payload: { filter: 'true' } });
    expect(stale.statusCode).toBe(412);
    expect(stale.json()).toMatchObject({ error: { code: 'REGISTRY_EPOCH_MISMATCH', hint: expect.stringContaining('/admin/epoch') } });
    expect((await app.inject({ url: '/admin/rls', headers: admin })).json()).toEqual([{ table_id: 'orders', role_id: 'analyst', filter: "region = 'eu'" }]);
    const current = String(epoch + 1);
    expect((await app.inject({ method: 'PUT', url: '/admin/rls/table/orders/analyst', headers: { ...admin, 'if-match': current }, payload: { filter: 'true' } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'DELETE', url: '/admin/roles/other', headers: { ...admin, 'if-match': 'not-an-epoch' } })).statusCode).toBe(400);
  });
});
