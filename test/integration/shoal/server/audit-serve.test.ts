/**
 * The audit log of a real `shoal serve` fleet member on a PostgreSQL registry: records land in the
 * registry's audit_log; and when that table cannot be written (held under an exclusive lock, as a
 * stuck registry would), queries still answer, the queue stays within audit.queue_size, and the
 * records beyond it are dropped and counted on /metrics — then the backlog is written.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../../../support/processes.js';
import { service } from '../../../support/service.js';
import { freePort } from '../../../support/services.js';

const postgres = service('postgres');
const QUEUE_SIZE = 5;

describe.skipIf(postgres.skip)('shoal serve: the audit log on a PostgreSQL registry', () => {
  let dir: string;
  let admin: pg.Client;
  let registry: pg.Client;
  let registryDb: string;
  let registryUrl: string;
  let server: ServerProcess;

  const query = async (text: string, role = 'admin') => {
    const r = await fetch(`${server.url}/data/sql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-provisa-role': role }, body: JSON.stringify({ sql: text }) });
    return { status: r.status, body: (await r.json()) as { rows?: unknown[][] } };
  };
  const metric = async (name: string): Promise<number> => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return Number(line?.split(' ')[1] ?? Number.NaN);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-audit-serve-'));
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    registryDb = `audit_registry_${process.pid}_${Date.now()}`;
    await admin.query(`CREATE DATABASE ${registryDb}`);
    const base = new URL(postgres.url!);
    registryUrl = `postgresql://${base.username}@${base.host}/${registryDb}`;
    writeFileSync(join(dir, 'n.csv'), 'n\n1\n2\n3\n');
    writeFileSync(join(dir, 'shoal.yaml'), `
auth: {provider: none}
control_plane: {tenant_url: "${registryUrl}"}
audit: {queue_size: ${QUEUE_SIZE}, batch_size: 1}
cache: {enabled: false}
domains: [{id: d}]
sources: [{id: n-csv, type: csv, path: n.csv}]
tables: [{source_id: n-csv, domain_id: d, table: n, columns: [{name: n, data_type: integer}]}]
roles: [{id: admin, capabilities: [admin, query_development, full_results], domain_access: ["*"]}]
`);
    const port = await freePort();
    server = await startServer(['serve', '--config', join(dir, 'shoal.yaml'), '--port', String(port)], { cwd: dir, port });
    registry = new pg.Client({ connectionString: registryUrl });
    await registry.connect();
  });
  afterAll(async () => {
    await server?.kill();
    await registry?.end().catch(() => undefined);
    await admin?.query(`DROP DATABASE IF EXISTS ${registryDb} WITH (FORCE)`).catch(() => undefined);
    await admin?.end();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes a record per request into the registry database, without the SQL text', async () => {
    expect((await query("SELECT n FROM d.n WHERE n > 1 AND 'marker-7731' <> ''")).status).toBe(200);
    const r = await fetch(`${server.url}/admin/audit?limit=5`, { headers: { 'x-provisa-role': 'admin' } });
    const body = (await r.json()) as { records: { path: string; outcome: string; rows: number; tables: string[]; route: string }[] };
    expect(body.records[0]).toMatchObject({ path: '/data/sql', outcome: 'ok', rows: 2, tables: ['d.n'], route: 'engine' });
    const rows = await registry.query('SELECT * FROM audit_log');
    expect(rows.rows.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(rows.rows)).not.toContain('marker-7731');
  });

  it('a stuck audit_log does not block queries; the queue is bounded and drops are counted on /metrics', async () => {
    // start from an empty queue (the previous request's record may still be on its way)
    while ((await metric('shoal_audit_queue_depth')) !== 0) await new Promise((r) => setTimeout(r, 50));
    const before = (await registry.query<{ n: string }>('SELECT count(*) AS n FROM audit_log')).rows[0]!.n;
    const dropped0 = await metric('shoal_audit_dropped_total');
    const locker = new pg.Client({ connectionString: registryUrl });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE audit_log IN ACCESS EXCLUSIVE MODE');
    try {
      const total = 30;
      for (let i = 0; i < total; i++) {
        const r = await query(`SELECT count(*) AS c FROM d.n WHERE n <> ${i}`);
        expect(r.status).toBe(200);
      }
      // one record is in flight (blocked on the lock) and counted in the bound; the rest beyond it are dropped
      expect(await metric('shoal_audit_queue_depth')).toBe(QUEUE_SIZE);
      expect((await metric('shoal_audit_dropped_total')) - dropped0).toBe(total - QUEUE_SIZE);
    } finally {
      await locker.query('COMMIT');
      await locker.end();
    }
    // once the table is writable again the held records are written
    const deadline = Date.now() + 30_000;
    let after = Number(before);
    while (Date.now() < deadline) {
      after = Number((await registry.query<{ n: string }>('SELECT count(*) AS n FROM audit_log')).rows[0]!.n);
      if (after >= Number(before) + QUEUE_SIZE) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(after).toBe(Number(before) + QUEUE_SIZE);
  });
});
