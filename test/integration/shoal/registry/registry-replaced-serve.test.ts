/**
 * A SQLite registry deleted under a running `shoal serve` (and then recreated by a peer that
 * starts over the same path) is noticed: admin writes are refused with 503 REGISTRY_REPLACED
 * instead of "succeeding" into the deleted file, /health answers 503 naming the registry as
 * replaced, and the peer's fresh registry never receives a write meant for the old one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../../../support/processes.js';
import { freePort } from '../../../support/services.js';

describe('a SQLite registry replaced under shoal serve', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-registry-replaced-'));
  const servers: ServerProcess[] = [];
  const start = async () => {
    const port = await freePort();
    const s = await startServer(['serve', '--config', join(dir, 'shoal.yaml'), '--port', String(port)], { cwd: dir, port, env: { SHOAL_MV_TICK_MS: '0' } });
    servers.push(s);
    return s;
  };

  beforeAll(() => {
    writeFileSync(join(dir, 'orders.csv'), 'id,region\n1,eu\n2,us\n');
    writeFileSync(join(dir, 'shoal.yaml'), `control_plane: {tenant_url: "sqlite:///registry.db", catalog: registry}
auth: {provider: none}
domains: [{id: sales}]
sources: [{id: orders-csv, type: csv, path: orders.csv}]
tables:
  - {source_id: orders-csv, domain_id: sales, table: orders, columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}]}
roles:
  - {id: admin, capabilities: [admin, full_results], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development], domain_access: [sales]}
  - {id: clerk, capabilities: [query_development], domain_access: [sales]}
`);
  });

  afterAll(async () => {
    for (const s of servers) await s.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const addRule = (url: string, filter: string, role = 'analyst') =>
    fetch(`${url}/admin/rls`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-provisa-role': 'admin' }, body: JSON.stringify({ table_id: 'orders', role_id: role, filter }) });
  const rules = async (url: string) => {
    const r = await fetch(`${url}/data/sql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-provisa-role': 'analyst' }, body: JSON.stringify({ sql: 'SELECT id FROM sales.orders ORDER BY id' }) });
    return ((await r.json()) as { rows: unknown[][] }).rows;
  };

  it('refuses writes with 503 REGISTRY_REPLACED and reports itself unhealthy; the peer over the new registry is unaffected', async () => {
    const a = await start();
    expect((await addRule(a.url, "region = 'eu'")).status).toBe(200);
    expect((await fetch(`${a.url}/health`)).status).toBe(200);
    for (const f of ['registry.db', 'registry.db-wal', 'registry.db-shm']) rmSync(join(dir, f), { force: true });
    const refused = await addRule(a.url, "region = 'us'", 'clerk');
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('REGISTRY_REPLACED');
    const health = await fetch(`${a.url}/health`);
    expect(health.status).toBe(503);
    expect(((await health.json()) as { dependencies: Record<string, string> }).dependencies.registry).toBe('replaced');
    // a peer starting now creates a fresh registry at the path; the old instance still cannot write into either
    const peer = await start();
    expect((await fetch(`${peer.url}/health`)).status).toBe(200);
    expect((await addRule(a.url, "region = 'us'", 'clerk')).status).toBe(503);
    expect(await rules(peer.url)).toEqual([[1], [2]]); // no rule from the old instance reached the new registry
    expect((await addRule(peer.url, "region = 'us'")).status).toBe(200);
  });
});
