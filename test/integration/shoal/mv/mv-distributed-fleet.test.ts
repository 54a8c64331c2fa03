/**
 * The distributed tier across real `shoal serve` processes sharing one registry (SQLite file and
 * PostgreSQL), each running its own refresh loop:
 * - each instance materializes its OWN copy of a distributed MV over a file source (its scratch
 *   space, not the shared store), and both answer the same;
 * - a source that keeps changing while the instances materialize is reported not quiescent, in
 *   the log (stderr) and on `/metrics` (`shoal_mv_not_quiescent_total{mv=…}`), and readers keep
 *   getting a whole copy; once the source settles, both converge on the same new answer.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../../../support/processes.js';
import { service } from '../../../support/service.js';
import { freePort } from '../../../support/services.js';

const postgres = service('postgres');
const MV = 'sales.local_totals';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(what: string, f: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function read(url: string): Promise<{ status: number; mv: string | null; rows: unknown[][] }> {
  const r = await fetch(`${url}/data/sql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-provisa-role': 'admin' },
    body: JSON.stringify({ sql: `SELECT region, total, n FROM ${MV} ORDER BY region` }),
  });
  const body = (await r.json()) as { rows?: unknown[][] };
  return { status: r.status, mv: r.headers.get('x-shoal-mv'), rows: body.rows ?? [] };
}

async function notQuiescent(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`shoal_mv_not_quiescent_total{mv="${MV}"} `));
  return line === undefined ? -1 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** The orders CSV at version k (every amount scaled by k), and the MV's rows for it. */
const orders = (k: number) => `id,region,amount\n1,eu,${10 * k}\n2,us,${20 * k}\n3,eu,${30 * k}\n`;
const expected = (k: number) => [
  ['eu', 40 * k, 2],
  ['us', 20 * k, 1],
];

function config(registryUrl: string): string {
  return `
control_plane: {tenant_url: "${registryUrl}"}
auth: {provider: none}
domains: [{id: sales}]
sources: [{id: orders-csv, type: csv, path: orders.csv}]
tables:
  - source_id: orders-csv
    domain_id: sales
    table: orders
    columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}, {name: amount, data_type: integer}]
  - source_id: __derived__
    domain_id: sales
    table: local_totals
    materialize: true
    mv_consistency: distributed
    view_sql: 'SELECT region, sum(amount) AS total, count(*) AS n FROM "orders_csv"."default"."orders" GROUP BY region'
    columns: [{name: region, data_type: varchar}, {name: total, data_type: bigint}, {name: n, data_type: bigint}]
roles:
  - {id: admin, capabilities: [admin, full_results], domain_access: ["*"]}
`;
}

const CATALOGS = [
  { name: 'SQLite', skip: false },
  { name: 'PostgreSQL', skip: postgres.skip },
] as const;

for (const catalog of CATALOGS) {
  describe.skipIf(catalog.skip)(`a distributed MV across real instances (${catalog.name} registry)`, () => {
    let dir: string;
    let dropDb: (() => Promise<void>) | undefined;
    const servers: ServerProcess[] = [];
    const cwds: string[] = [];

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'shoal-mv-dist-fleet-'));
      let registryUrl = 'sqlite:///registry.db';
      if (catalog.name === 'PostgreSQL') {
        const admin = new pg.Client({ connectionString: postgres.url });
        await admin.connect();
        const db = `mv_dist_${process.pid}_${Date.now()}`;
        await admin.query(`CREATE DATABASE ${db}`);
        const base = new URL(postgres.url!);
        registryUrl = `postgresql://${base.username}@${base.host}/${db}`;
        dropDb = async () => {
          await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch(() => undefined);
          await admin.end();
        };
      }
      writeFileSync(join(dir, 'orders.csv'), orders(1));
      writeFileSync(join(dir, 'shoal.yaml'), config(registryUrl));
      for (let i = 0; i < 2; i++) {
        const port = await freePort();
        const cwd = mkdtempSync(join(tmpdir(), 'shoal-mv-dist-instance-'));
        cwds.push(cwd);
        servers.push(
          await startServer(['serve', '--config', join(dir, 'shoal.yaml'), '--port', String(port), '--poll-ms', '200'], {
            cwd,
            port,
            // every instance runs the loop; a pause after each materialization lets a moving source move
            env: { SHOAL_MV_TICK_MS: '300', SHOAL_MV_FAULT_LOCAL_BUILD_DELAY_MS: '600' },
          }),
        );
      }
    });

    afterAll(async () => {
      for (const s of servers) await s.kill();
      await dropDb?.();
      rmSync(dir, { recursive: true, force: true });
      for (const c of cwds) rmSync(c, { recursive: true, force: true });
    });

    it('each instance materializes its own copy, and both answer the same', async () => {
      const served = await Promise.all(
        servers.map((s) => until(`instance ${s.url} to serve its own copy`, async () => {
          const r = await read(s.url);
          return r.mv?.startsWith(`${MV}=local:`) ? r : undefined;
        })),
      );
      for (const r of served) expect(r).toMatchObject({ status: 200, rows: expected(1) });
      // two copies, one per instance, and none in the shared store
      expect(served[0]!.mv).not.toBe(served[1]!.mv);
      expect(existsSync(join(dir, 'shoal-mv', 'sales.local_totals'))).toBe(false);
      for (const s of servers) {
        expect(await notQuiescent(s.url)).toBe(0);
        const one = (await (await fetch(`${s.url}/admin/mv/${MV}`, { headers: { 'x-provisa-role': 'admin' } })).json()) as Record<string, unknown>;
        expect(one).toMatchObject({ id: MV, consistency: 'distributed', serving: { kind: 'snapshot' }, last_refresh: { outcome: 'refreshed', rowCount: 2 } });
      }
    });

    it('a source changing during materialization is reported not quiescent (log and /metrics); once it settles both converge', async () => {
      const before = await Promise.all(servers.map((s) => read(s.url)));
      let k = 2;
      let churning = true;
      const churn = (async () => {
        while (churning) {
          writeFileSync(join(dir, 'orders.csv'), orders(k++));
          await sleep(50);
        }
      })();
      const reads: Awaited<ReturnType<typeof read>>[] = [];
      try {
        for (const s of servers) {
          await until(`instance ${s.url} to report the source not quiescent`, async () => {
            reads.push(await read(s.url));
            return (await notQuiescent(s.url)) >= 1;
          });
          expect(s.output()).toContain(`the inputs of distributed MV ${MV} changed during each of 3 materializations`);
        }
      } finally {
        churning = false;
        await churn;
      }
      // readers were always answered from a whole copy of one version
      for (const r of reads) {
        expect(r.status).toBe(200);
        expect(r.mv).toMatch(new RegExp(`^${MV.replace('.', '\\.')}=local:`));
        expect(Array.from({ length: k }, (_, i) => expected(i + 1))).toContainEqual(r.rows);
      }
      const last = k - 1;
      writeFileSync(join(dir, 'orders.csv'), orders(last + 1));
      const after = await Promise.all(
        servers.map((s, i) => until(`instance ${s.url} to converge`, async () => {
          const r = await read(s.url);
          return r.mv !== before[i]!.mv && JSON.stringify(r.rows) === JSON.stringify(expected(last + 1)) ? r : undefined;
        })),
      );
      expect(after[0]!.rows).toEqual(after[1]!.rows);
      expect(after[0]!.mv).not.toBe(after[1]!.mv);
    });
  });
}
