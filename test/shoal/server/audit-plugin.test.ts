import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditQueue } from '../../../src/shoal/audit/audit-queue.js';
import type { StoredAuditRecord } from '../../../src/shoal/audit/audit-record.js';
import { SqlAuditStore } from '../../../src/shoal/audit/audit-store.js';
import { principalIdOf } from '../../../src/shoal/audit/principal-id.js';
import { sqlFingerprint } from '../../../src/shoal/audit/sql-fingerprint.js';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { EMBEDDED_REGISTRY_URL, ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { adminPlugin } from '../../../src/shoal/server/admin-plugin.js';
import { buildApp } from '../../../src/shoal/server/app.js';
import { auditAdminPlugin } from '../../../src/shoal/server/audit-admin-plugin.js';

// A real instance (SQLite registry, CSV source, DuckDB) behind the real app; the audit log is the
// registry database's audit_log table, read back through GET /admin/audit.
describe('the audit log of every request', () => {
  let dir: string;
  let instance: ShoalInstance;
  let store: SqlAuditStore;
  let queue: AuditQueue;
  let app: FastifyInstance;
  const sql = (role: string, text: string, host = 'localhost') =>
    app.inject({ method: 'POST', url: '/data/sql', payload: { sql: text }, headers: { 'x-provisa-role': role, host } });
  const audit = async (query = '', role = 'admin') => {
    const r = await app.inject({ url: `/admin/audit${query}`, headers: { 'x-provisa-role': role } });
    return { status: r.statusCode, body: r.json() as { records: StoredAuditRecord[]; next_before: number | null; error?: { code: string } } };
  };
  const latest = async (): Promise<StoredAuditRecord> => {
    await queue.flush();
    return (await store.list({ limit: 1 }))[0]!;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-audit-'));
    writeFileSync(join(dir, 'orders.csv'), 'id,email,amount\n1,alice@example.com,10\n2,bob@example.com,20\n3,carol@example.com,30\n');
    writeFileSync(join(dir, 'shoal.yaml'), `
auth: {provider: none}
domains: [{id: sales}]
sources: [{id: orders-csv, type: csv, path: orders.csv}]
tables:
  - {source_id: orders-csv, domain_id: sales, table: orders, columns: [{name: id, data_type: integer}, {name: email, data_type: varchar}, {name: amount, data_type: integer}]}
roles:
  - {id: admin, capabilities: [admin, query_development, full_results], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development], domain_access: [sales]}
`);
    instance = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'shoal.yaml') }).config, baseDir: dir, mv: { tickMs: 0 } });
    store = await SqlAuditStore.open(EMBEDDED_REGISTRY_URL, instance.registry.identity, { baseDir: dir });
    queue = new AuditQueue(store, { capacity: 1000, metrics: instance.metrics });
    app = await buildApp({
      service: instance,
      audit: { sink: queue, instanceId: 'test-host:1:cafe' },
      plugins: [adminPlugin(instance), auditAdminPlugin({ registry: instance.registry, audit: { store, queue } })],
    });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await queue?.close();
    await store?.close();
    await instance?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records a successful query: principal, role, fingerprint, tables, route, rows, outcome, instance — and no literal value', async () => {
    const r = await sql('admin', "SELECT id, amount FROM sales.orders WHERE email <> 'alice@example.com' AND amount < 25");
    expect(r.statusCode).toBe(200);
    expect(r.json().rows).toEqual([[2, 20]]);
    const rec = await latest();
    expect(rec).toMatchObject({
      principal: 'anonymous',
      role: 'admin',
      method: 'POST',
      path: '/data/sql',
      status: 200,
      outcome: 'ok',
      tables: ['sales.orders'],
      route: 'engine',
      rows: 1,
      instance: 'test-host:1:cafe',
    });
    // the fingerprint is the query's shape: the same with other values, so it holds none of them
    expect(rec.sql_fingerprint).toBe(sqlFingerprint("select id, amount from sales.orders where email <> 'x' and amount < 1"));
    expect(rec.duration_ms).toBeGreaterThanOrEqual(0);
    // no text field holds a value of the query (numbers like `at` and `duration_ms` are times, not values)
    const { principal, role, path, outcome, tables, route, instance: id } = rec;
    expect(JSON.stringify({ principal, role, path, outcome, tables, route, id })).not.toMatch(/alice|25/);
  });

  it('the same query again is served from the result cache and recorded as route cache, with its tables', async () => {
    const text = 'SELECT count(*) AS n FROM sales.orders WHERE amount > 15';
    await sql('admin', text);
    const again = await sql('admin', text);
    expect(again.headers['x-provisa-cache']).toBe('HIT');
    const rec = await latest();
    expect(rec).toMatchObject({ route: 'cache', tables: ['sales.orders'], rows: 1, outcome: 'ok' });
  });

  it('records a failed query (bad SQL) with its error code, and not the literal it carried', async () => {
    const r = await sql('analyst', "SELEC * FROM sales.orders WHERE email = 'secret-4111@example.com'");
    expect(r.statusCode).toBe(400);
    const rec = await latest();
    expect(rec).toMatchObject({ role: 'analyst', status: 400, outcome: r.json().error.code, rows: null, route: null });
    expect(rec.sql_fingerprint).toBe(sqlFingerprint("SELEC * FROM sales.orders WHERE email = 'other'"));
    expect(JSON.stringify(rec)).not.toContain('secret-4111');
  });

  it('records a refused admin request and a request refused at the Host check; probes are not recorded', async () => {
    const refused = await app.inject({ url: '/admin/epoch', headers: { 'x-provisa-role': 'analyst' } });
    expect(refused.statusCode).toBe(403);
    expect(await latest()).toMatchObject({ path: '/admin/epoch', method: 'GET', role: 'analyst', status: 403, outcome: 'CAPABILITY_MISSING', sql_fingerprint: null });
    const host = await sql('admin', 'SELECT 1', 'attacker.example');
    expect(host.statusCode).toBe(421);
    expect(await latest()).toMatchObject({ path: '/data/sql', status: 421, outcome: 'HOST_NOT_ALLOWED', principal: 'unauthenticated' });
    const before = (await latest()).id;
    await app.inject('/health');
    await app.inject('/metrics');
    expect((await latest()).id).toBe(before);
  });

  it('GET /admin/audit is refused to a non-admin, as every admin route is (and the refusal is itself recorded)', async () => {
    expect(await audit('', 'analyst')).toMatchObject({ status: 403, body: { error: { code: 'CAPABILITY_MISSING' } } });
    expect((await audit('', '')).body.error?.code).toBe('ROLE_REQUIRED');
    expect(await latest()).toMatchObject({ path: '/admin/audit', outcome: 'ROLE_REQUIRED' });
  });

  it('GET /admin/audit filters by principal, outcome, role and since, and pages with a bounded limit', async () => {
    const all = await audit('?limit=1000');
    expect(all.status).toBe(200);
    expect(all.body.records.length).toBeGreaterThanOrEqual(6);
    expect(all.body.records[0]!.at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const failed = await audit('?outcome=CAPABILITY_MISSING&role=analyst');
    expect(failed.body.records.length).toBeGreaterThanOrEqual(2);
    expect(failed.body.records.every((r) => r.outcome === 'CAPABILITY_MISSING' && r.role === 'analyst')).toBe(true);
    expect((await audit('?principal=nobody')).body.records).toEqual([]);
    expect((await audit(`?since=${new Date(Date.now() + 60_000).toISOString()}`)).body.records).toEqual([]);
    const page = await audit('?limit=2');
    expect(page.body.records).toHaveLength(2);
    const next = await audit(`?limit=2&before=${page.body.next_before}`);
    expect(next.body.records[0]!.id).toBeLessThan(page.body.records[1]!.id);
    for (const bad of ['?limit=5000', '?limit=0', '?since=yesterday', '?sql=x']) {
      const r = await audit(bad);
      expect(r.status, bad).toBe(400);
      expect(r.body.error?.code).toBe('BAD_REQUEST');
    }
  });

  it('records the principal authentication set, through one helper', () => {
    expect(principalIdOf({})).toBe('unauthenticated');
    expect(principalIdOf({ principal: { id: 'user:alice', kind: 'basic', roles: ['analyst'], vars: {} } })).toBe('user:alice');
  });
});
