/**
 * The declarative control plane across a fleet, with real processes: three `shoal serve`
 * instances (config mode) share one PostgreSQL registry; `shoal registry apply` of an edited file
 * — an RLS rule and a table deleted, a rule changed — lands in one epoch and is then served
 * identically by every instance (each polls the registry epoch). A one-off `shoal query` with yet
 * another file changes nothing any instance serves.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distBin, startServer, type ServerProcess } from '../../../support/processes.js';
import { freePort } from '../../../support/services.js';
import { service } from '../../../support/service.js';
import { until } from '../../../support/until.js';

const postgres = service('postgres');

function shoal(cwd: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [distBin('shoal'), ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

async function sql(url: string, role: string, text: string): Promise<{ status: number; body: unknown }> {
  const r = await fetch(`${url}/data/sql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-provisa-role': role }, body: JSON.stringify({ sql: text }) });
  return { status: r.status, body: await r.json() };
}

async function epochOf(url: string): Promise<number> {
  const r = await fetch(`${url}/admin/epoch`, { headers: { 'x-provisa-role': 'admin' } });
  return ((await r.json()) as { epoch: number }).epoch;
}

const QUERIES = [
  { role: 'analyst', sql: 'SELECT id, region FROM sales.orders ORDER BY id' },
  { role: 'manager', sql: 'SELECT id FROM sales.orders ORDER BY id' },
  { role: 'analyst', sql: 'SELECT code, name FROM sales.regions ORDER BY code' },
  { role: 'admin', sql: 'SELECT count(*) AS n FROM sales.orders' },
] as const;

function config(registryUrl: string, version: 'v1' | 'v2' | 'stray'): string {
  const regions = version === 'v2' ? '' : '  - {source_id: regions-csv, domain_id: sales, table: regions, columns: [{name: code, data_type: varchar}, {name: name, data_type: varchar}]}\n';
  const rules = {
    v1: `  - {table_id: orders, role_id: analyst, filter: "region = 'eu'"}\n  - {table_id: orders, role_id: manager, filter: "id < 3"}\n`,
    // the analyst rule is deleted; the manager rule changes
    v2: `  - {table_id: orders, role_id: manager, filter: "id > 2"}\n`,
    stray: `  - {table_id: orders, role_id: analyst, filter: "region = 'us'"}\n`,
  }[version];
  return `control_plane: {tenant_url: "${registryUrl}"}
auth: {provider: none}
domains: [{id: sales}]
sources:
  - {id: orders-csv, type: csv, path: orders.csv}
  - {id: regions-csv, type: csv, path: regions.csv}
tables:
  - {source_id: orders-csv, domain_id: sales, table: orders, columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}]}
${regions}roles:
  - {id: admin, capabilities: [admin, query_development], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development], domain_access: [sales]}
  - {id: manager, capabilities: [query_development], domain_access: [sales]}
rls_rules:
${rules}`;
}

describe.skipIf(postgres.skip)('shoal registry apply across a fleet of real instances', () => {
  let dir: string;
  let registryDb: string;
  let admin: pg.Client;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-apply-fleet-'));
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    registryDb = `apply_fleet_${process.pid}_${Date.now()}`;
    await admin.query(`CREATE DATABASE ${registryDb}`);
    const base = new URL(postgres.url!);
    const registryUrl = `postgresql://${base.username}@${base.host}/${registryDb}`;
    writeFileSync(join(dir, 'orders.csv'), 'id,region\n1,eu\n2,us\n3,eu\n4,us\n');
    writeFileSync(join(dir, 'regions.csv'), 'code,name\neu,Europe\nus,United States\n');
    for (const v of ['v1', 'v2', 'stray'] as const) writeFileSync(join(dir, `${v}.yaml`), config(registryUrl, v));
  });

  afterAll(async () => {
    for (const s of servers) await s.kill('SIGKILL');
    await admin?.query(`DROP DATABASE IF EXISTS ${registryDb} WITH (FORCE)`).catch(() => undefined);
    await admin?.end();
    rmSync(dir, { recursive: true, force: true });
  });

  const answers = (url: string) => Promise.all(QUERIES.map((q) => sql(url, q.role, q.sql)));

  it('an apply with deletions lands in one epoch and every instance serves it identically; a stray query --config changes nothing', async () => {
    const start = async () => {
      const port = await freePort();
      const s = await startServer(['serve', '--config', join(dir, 'v1.yaml'), '--port', String(port), '--poll-ms', '300'], { cwd: dir, port, env: { SHOAL_MV_TICK_MS: '0' } });
      servers.push(s);
      return s;
    };
    const fleet = [await start(), await start(), await start()];
    const before = await answers(fleet[0]!.url);
    expect(before.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((before[0]!.body as { rows: unknown[][] }).rows).toEqual([[1, 'eu'], [3, 'eu']]);
    expect((before[1]!.body as { rows: unknown[][] }).rows).toEqual([[1], [2]]);
    for (const s of fleet.slice(1)) expect(await answers(s.url)).toEqual(before);
    const epoch = await epochOf(fleet[0]!.url);

    // a one-off query with another file reads the registry; no instance changes what it serves
    const stray = await shoal(dir, 'query', '--config', 'stray.yaml', '--role', 'analyst', '--json', 'SELECT id FROM sales.orders ORDER BY id');
    expect(stray.code, stray.stderr).toBe(0);
    expect((JSON.parse(stray.stdout) as { rows: unknown[][] }).rows).toEqual([[1], [3]]);
    for (const s of fleet) expect(await epochOf(s.url)).toBe(epoch);

    const plan = await shoal(dir, 'registry', 'plan', '--config', 'v2.yaml', '--json');
    expect(plan.code, plan.stderr).toBe(0);
    expect((JSON.parse(plan.stdout) as { entries: unknown[] }).entries).toEqual([
      { kind: 'table', id: 'regions', action: 'delete' },
      { kind: 'rls_rule', id: 'table orders role manager', action: 'change' },
      { kind: 'rls_rule', id: 'table orders role analyst', action: 'delete' },
    ]);
    const applied = await shoal(dir, 'registry', 'apply', '--config', 'v2.yaml', '--json');
    expect(applied.code, applied.stderr).toBe(0);
    expect(JSON.parse(applied.stdout)).toMatchObject({ changed: true, epoch: epoch + 1, summary: { add: 0, change: 1, delete: 2 } });

    // every instance reaches the new epoch (it polls), then all serve the same, new answers
    for (const s of fleet) await until(`instance ${s.url} at epoch ${epoch + 1}`, async () => ((await epochOf(s.url)) === epoch + 1 ? true : undefined), 120_000);
    const after = await until('the applied catalog served', async () => {
      const a = await answers(fleet[0]!.url);
      return a[2]!.status === 404 ? a : undefined;
    }, 120_000);
    expect((after[0]!.body as { rows: unknown[][] }).rows).toEqual([[1, 'eu'], [2, 'us'], [3, 'eu'], [4, 'us']]);
    expect((after[1]!.body as { rows: unknown[][] }).rows).toEqual([[3], [4]]);
    expect(after[2]).toMatchObject({ status: 404, body: { error: { code: 'SQL_UNKNOWN_TABLE' } } });
    for (const s of fleet.slice(1)) {
      await until(`instance ${s.url} serving the applied catalog`, async () => {
        const a = await answers(s.url);
        return JSON.stringify(a) === JSON.stringify(after) ? true : undefined;
      }, 120_000);
    }
    // a second apply is a no-op: no epoch, nothing re-served
    const again = await shoal(dir, 'registry', 'apply', '--config', 'v2.yaml', '--json');
    expect(JSON.parse(again.stdout)).toMatchObject({ changed: false, epoch: epoch + 1 });
    for (const s of fleet) expect(await epochOf(s.url)).toBe(epoch + 1);
  }, 900_000);
});
