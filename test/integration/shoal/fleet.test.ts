/**
 * Statelessness (S1) and cross-instance reload (S2), with real processes: two `shoal serve`
 * instances share one PostgreSQL registry; one is SIGKILLed mid-query and restarted from an empty
 * working directory, and both must give identical answers; a mutation through one is served by the
 * other within its poll interval.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/services.js';
import { service } from '../../support/service.js';
import { startServer, type ServerProcess } from '../../support/processes.js';

const postgres = service('postgres');

async function sql(url: string, role: string, text: string, vars: Record<string, string> = {}): Promise<{ status: number; body: { columns?: unknown; rows?: unknown[][]; error?: { code: string } } }> {
  const r = await fetch(`${url}/data/sql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-provisa-role': role }, body: JSON.stringify({ sql: text, vars }) });
  return { status: r.status, body: (await r.json()) as never };
}

const QUERIES: readonly { role: string; sql: string; vars?: Record<string, string> }[] = [
  { role: 'admin', sql: 'SELECT id, region, amount, email FROM sales.orders ORDER BY id' },
  { role: 'analyst', sql: 'SELECT id, email, amount FROM sales.orders ORDER BY id', vars: { 'provisa.user_region': 'eu' } },
  { role: 'analyst', sql: 'SELECT s.segment, count(*) AS n FROM sales.orders o JOIN sales.segments s ON s.customer_id = o.customer_id GROUP BY s.segment ORDER BY s.segment', vars: { 'provisa.user_region': 'us' } },
  { role: 'admin', sql: 'SELECT count(*) AS n FROM sales.big' },
];

describe.skipIf(postgres.skip)('a shoal fleet on one shared registry', () => {
  let dir: string;
  let registryDb: string;
  let admin: pg.Client;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-fleet-'));
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    const suffix = `${process.pid}_${Date.now()}`;
    registryDb = `fleet_registry_${suffix}`;
    const sourceDb = `fleet_source_${suffix}`;
    await admin.query(`CREATE DATABASE ${registryDb}`);
    await admin.query(`CREATE DATABASE ${sourceDb}`);
    const base = new URL(postgres.url!);
    const src = new pg.Client({ connectionString: `postgresql://${base.username}@${base.host}/${sourceDb}` });
    await src.connect();
    await src.query('CREATE TABLE orders (id int primary key, customer_id int, region text, amount numeric(10,2), email text)');
    await src.query(`INSERT INTO orders VALUES (1,1,'eu',10.50,'alice@example.com'),(2,2,'us',20.00,'bob@example.com'),(3,3,'eu',30.25,'carol@example.com'),(4,1,'us',5.00,'dave@example.com')`);
    await src.end();
    writeFileSync(join(dir, 'segments.csv'), 'customer_id,segment\n1,gold\n2,silver\n3,gold\n');
    writeFileSync(join(dir, 'big.csv'), `n\n${Array.from({ length: 3000 }, (_, i) => i).join('\n')}\n`);
    const registryUrl = `postgresql://${base.username}@${base.host}/${registryDb}`;
    writeFileSync(join(dir, 'shoal.yaml'), `
control_plane: {tenant_url: "${registryUrl}", catalog: registry} # tables are registered through the admin API below
auth: {provider: none}
admin: {file_roots: ["."]}
domains: [{id: sales}]
sources:
  - {id: sales-pg, type: postgresql, host: ${base.hostname}, port: ${base.port}, database: ${sourceDb}, username: ${base.username}}
  - {id: seg-csv, type: csv, path: segments.csv}
  - {id: big-csv, type: csv, path: big.csv}
tables:
  - source_id: sales-pg
    domain_id: sales
    schema: public
    table: orders
    columns:
      - {name: id, data_type: integer, visible_to: [admin, analyst]}
      - {name: customer_id, data_type: integer, visible_to: [admin, analyst]}
      - {name: region, data_type: varchar, visible_to: [admin, analyst]}
      - {name: amount, data_type: decimal, visible_to: [admin, analyst], unmasked_to: [admin], mask_type: constant, mask_value: "0"}
      - {name: email, data_type: varchar, visible_to: [admin, analyst], unmasked_to: [admin], mask_type: regex, mask_pattern: "^(.{2}).*(@.*)$", mask_replace: "$1***$2"}
  - {source_id: seg-csv, domain_id: sales, table: segments, columns: [{name: customer_id, data_type: integer, visible_to: [admin, analyst]}, {name: segment, data_type: varchar, visible_to: [admin, analyst]}]}
  - {source_id: big-csv, domain_id: sales, table: big, columns: [{name: n, data_type: integer, visible_to: [admin]}]}
roles:
  - {id: admin, capabilities: [admin, query_development, full_results], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development], domain_access: [sales]}
rls_rules:
  - {table_id: orders, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}
`);
  });

  afterAll(async () => {
    for (const s of servers) await s.kill();
    await admin?.query(`DROP DATABASE IF EXISTS ${registryDb} WITH (FORCE)`).catch(() => undefined);
    await admin?.end();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (): Promise<ServerProcess> => {
    const port = await freePort();
    const cwd = mkdtempSync(join(tmpdir(), 'shoal-instance-'));
    const s = await startServer(['serve', '--config', join(dir, 'shoal.yaml'), '--port', String(port), '--poll-ms', '300'], { cwd, port });
    servers.push(s);
    return s;
  };

  const answers = async (url: string) => Promise.all(QUERIES.map((q) => sql(url, q.role, q.sql, q.vars ?? {})));

  it('answers identically from both instances, before and after one is SIGKILLed mid-query and restarted empty', async () => {
    const a = await start();
    const b = await start();
    const fromA = await answers(a.url);
    const fromB = await answers(b.url);
    for (const r of fromA) expect(r.status).toBe(200);
    expect(fromB).toEqual(fromA);
    // The governed answers are the right ones, not merely equal.
    expect(fromA[1]?.body.rows).toEqual([[1, 'al***@example.com', '0'], [3, 'ca***@example.com', '0']]);
    expect(fromA[2]?.body.rows).toEqual([['gold', 1], ['silver', 1]]);

    // A long query on A, killed while it runs.
    const slow = sql(a.url, 'admin', 'SELECT count(*) FROM sales.big x, sales.big y, sales.big z WHERE x.n + y.n + z.n = -1').catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 300));
    await a.kill('SIGKILL');
    expect(await slow).toBeInstanceOf(Error);

    const a2 = await start();
    expect(await answers(a2.url)).toEqual(fromA);
    expect(await answers(b.url)).toEqual(fromA);
  });

  it('a table registered through one instance is served by the other within the poll interval', async () => {
    const [a, b] = [servers.at(-1)!, servers.at(-2)!];
    writeFileSync(join(dir, 'regions.csv'), 'region,name\neu,Europe\nus,United States\n');
    const reg = await fetch(`${a.url}/admin/sources`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-provisa-role': 'admin' }, body: JSON.stringify({ id: 'regions-csv', type: 'csv', path: join(dir, 'regions.csv') }) });
    expect(reg.status).toBe(200);
    const t = await fetch(`${a.url}/admin/tables`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-provisa-role': 'admin' },
      body: JSON.stringify({ source_id: 'regions-csv', domain_id: 'sales', table: 'regions', columns: [{ name: 'region', data_type: 'varchar', visible_to: ['admin'] }, { name: 'name', data_type: 'varchar', visible_to: ['admin'] }] }),
    });
    expect(t.status).toBe(200);
    // B has not been told anything: it must notice the epoch change by itself.
    const deadline = Date.now() + 10_000;
    let last: Awaited<ReturnType<typeof sql>> | undefined;
    while (Date.now() < deadline) {
      last = await sql(b.url, 'admin', 'SELECT name FROM sales.regions ORDER BY region');
      if (last.status === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(last?.status).toBe(200);
    expect(last?.body.rows).toEqual([['Europe'], ['United States']]);
  });

  it('rejects admin mutations from a role without the admin capability', async () => {
    const a = servers.at(-1)!;
    const r = await fetch(`${a.url}/admin/sources`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-provisa-role': 'analyst' }, body: JSON.stringify({ id: 'x', type: 'csv', path: '/tmp/x.csv' }) });
    expect(r.status).toBe(403);
  });
});
