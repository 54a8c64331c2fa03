/**
 * Hot tables across real `shoal serve` processes sharing one Redis (this file's own redis-server)
 * and one PostgreSQL registry: an invalidation taken by one process is honoured by the other over
 * Redis pub/sub (no refresh-interval wait), and the other's next answer shows the change. Without
 * a timed assertion: the test polls the peer's `GET /admin/cache` with a generous deadline.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../../../support/processes.js';
import { service } from '../../../support/service.js';
import { freePort } from '../../../support/services.js';
import { OwnRedis } from './own-redis.js';

const postgres = service('postgres');
const redisService = service('redis');

type Body = { rows?: unknown[][]; error?: { code: string } };
async function sql(url: string, role: string, text: string, vars: Record<string, string> = {}): Promise<{ status: number; hot: string | null; body: Body }> {
  const r = await fetch(`${url}/data/sql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-provisa-role': role }, body: JSON.stringify({ sql: text, vars }) });
  return { status: r.status, hot: r.headers.get('x-shoal-hot'), body: (await r.json()) as Body };
}
type HotTable = { table: string; state: string; generation?: string };
async function hotStatus(url: string, table: string): Promise<HotTable | undefined> {
  const r = await fetch(`${url}/admin/cache`, { headers: { 'x-provisa-role': 'admin' } });
  const body = (await r.json()) as { hot: { tables: HotTable[] } | null };
  return body.hot?.tables.find((t) => t.table === table);
}

describe.skipIf(postgres.skip || redisService.skip)('hot tables across shoal serve processes sharing Redis', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-hot-fleet-'));
  const suffix = `${process.pid}_${Date.now()}`;
  const registryDb = `hot_fleet_registry_${suffix}`;
  const sourceDb = `hot_fleet_source_${suffix}`;
  let admin: pg.Client;
  let src: pg.Client;
  let redis: OwnRedis;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    redis = await OwnRedis.start();
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${registryDb}`);
    await admin.query(`CREATE DATABASE ${sourceDb}`);
    const base = new URL(postgres.url!);
    src = new pg.Client({ connectionString: `postgresql://${base.username}@${base.host}/${sourceDb}` });
    await src.connect();
    await src.query('CREATE TABLE regions (code text primary key, name text, manager text)');
    await src.query("INSERT INTO regions VALUES ('eu', 'Europe', 'anna@example.com'), ('us', 'United States', 'bill@example.com')");
    writeFileSync(join(dir, 'orders.csv'), 'id,region,amount\n1,eu,10.5\n2,us,20\n3,eu,30.25\n');
    writeFileSync(join(dir, 'shoal.yaml'), `
control_plane: {tenant_url: "postgresql://${base.username}@${base.host}/${registryDb}"}
cache: {enabled: false, redis_url: "${redis.url}"}
hot_tables: {refresh_interval: 3600}
auth: {provider: none}
domains: [{id: sales}]
sources:
  - {id: ref-pg, type: postgresql, host: ${base.hostname}, port: ${base.port}, database: ${sourceDb}, username: ${base.username}}
  - {id: orders-csv, type: csv, path: orders.csv}
tables:
  - source_id: ref-pg
    domain_id: sales
    schema: public
    table: regions
    hot: true
    columns:
      - {name: code, data_type: varchar}
      - {name: name, data_type: varchar}
      - {name: manager, data_type: varchar, unmasked_to: [admin], mask_type: regex, mask_pattern: "^(.{2}).*(@.*)$", mask_replace: "$1***$2"}
  - {source_id: orders-csv, domain_id: sales, table: orders, columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}, {name: amount, data_type: double}]}
roles:
  - {id: admin, capabilities: [admin, query_development, full_results], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development], domain_access: [sales]}
rls_rules:
  - {table_id: regions, role_id: analyst, filter: "code = current_setting('provisa.region')"}
`);
  });

  afterAll(async () => {
    for (const s of servers) await s.kill();
    await src?.end();
    await admin?.query(`DROP DATABASE IF EXISTS ${registryDb} WITH (FORCE)`).catch(() => undefined);
    await admin?.query(`DROP DATABASE IF EXISTS ${sourceDb} WITH (FORCE)`).catch(() => undefined);
    await admin?.end();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (): Promise<ServerProcess> => {
    const port = await freePort();
    const cwd = mkdtempSync(join(tmpdir(), 'shoal-hot-instance-'));
    const s = await startServer(['serve', '--config', join(dir, 'shoal.yaml'), '--port', String(port), '--poll-ms', '60000'], { cwd, port });
    servers.push(s);
    return s;
  };

  it('an invalidation on one process is honoured by the other, whose next answer shows the change', async () => {
    const a = await start();
    const b = await start();
    const q = 'SELECT o.id, r.name, r.manager FROM sales.orders o JOIN sales.regions r ON r.code = o.region ORDER BY o.id';
    const before = await sql(b.url, 'analyst', q, { 'provisa.region': 'eu' });
    expect(before.status).toBe(200);
    expect(before.hot).toContain('sales.regions');
    expect(before.body.rows).toEqual([[1, 'Europe', 'an***@example.com'], [3, 'Europe', 'an***@example.com']]);
    const genBefore = (await hotStatus(b.url, 'sales.regions'))?.generation;

    await src.query("UPDATE regions SET name = 'Europa' WHERE code = 'eu'");
    // B keeps its copy until told (refresh_interval is an hour)
    expect((await sql(b.url, 'analyst', q, { 'provisa.region': 'eu' })).body.rows?.[0]?.[1]).toBe('Europe');

    const inv = await fetch(`${a.url}/admin/cache/invalidate`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-provisa-role': 'admin' }, body: JSON.stringify({ table: 'sales.regions' }) });
    expect(await inv.json()).toEqual({ invalidated: 'sales.regions', propagated: true });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const s = await hotStatus(b.url, 'sales.regions');
      if (s?.state === 'cached' && s.generation !== genBefore) break;
      if (Date.now() > deadline) throw new Error(`B did not reload: ${JSON.stringify(s)}\n${b.output()}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    const after = await sql(b.url, 'analyst', q, { 'provisa.region': 'eu' });
    expect(after.hot).toContain('sales.regions'); // orders (3 rows) may have been promoted automatically meanwhile
    expect(after.body.rows).toEqual([[1, 'Europa', 'an***@example.com'], [3, 'Europa', 'an***@example.com']]);
    const asAdmin = await sql(b.url, 'admin', q);
    expect(asAdmin.body.rows).toEqual([[1, 'Europa', 'anna@example.com'], [2, 'United States', 'bill@example.com'], [3, 'Europa', 'anna@example.com']]);
  }, 180_000);
});
