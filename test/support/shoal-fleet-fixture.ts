/**
 * A shoal config for fleet tests and benches: the demo's sample data (SQLite ⋈ CSV ⋈ tik) on
 * embedded stores a fleet on one machine shares (the SQLite registry file and the snapshot
 * directory beside the config), three principals with access tokens, and governed queries whose
 * answers differ per principal (row-level security, masks). The oracle is one `shoal serve` of
 * the same config, queried directly.
 */
import { execFileSync } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_CONFIG, DEMO_QUERY } from '../../src/shoal/demo/demo-config.js';
import { generateSampleData } from '../../src/shoal/demo/sample-data.js';
import type { LoadRequest } from './fleet-chaos.js';
import { distBin } from './processes.js';

export interface Principal {
  readonly name: string;
  readonly token: string;
}

export const FLEET_QUERIES: readonly string[] = [
  DEMO_QUERY,
  'SELECT region, count(*) AS n, sum(amount) AS total FROM sales.orders GROUP BY region ORDER BY region',
  'SELECT id, name, email, region FROM sales.customers ORDER BY id',
];

/**
 * Writes the data and `shoal.yaml` into `dir` and mints one token per principal; returns the
 * config path and principals. `registryUrl` replaces the embedded SQLite registry (a fleet's
 * registry is PostgreSQL: see docs/operations.md on a paused instance holding SQLite's write lock).
 */
export function makeShoalFleetConfig(dir: string, registryUrl?: string): { config: string; principals: Principal[] } {
  generateSampleData(dir);
  const config = join(dir, 'shoal.yaml');
  const embedded = 'tenant_url: sqlite:///shoal-registry.db';
  if (!DEMO_CONFIG.includes(embedded)) throw new Error('the demo config no longer names its registry as expected');
  writeFileSync(join(dir, 'ledger.csv'), ledgerCsv(1));
  const demo = registryUrl === undefined ? DEMO_CONFIG : DEMO_CONFIG.replace(embedded, `tenant_url: "${registryUrl}"`);
  if (!demo.includes('\nsources:\n') || !demo.includes('\ntables:\n')) throw new Error('the demo config no longer has sources: and tables: lists');
  writeFileSync(config, demo.replace('\nsources:\n', `\nsources:\n${LEDGER_SOURCE}`).replace('\ntables:\n', `\ntables:\n${LEDGER_TABLES}`));
  const mint = (name: string, role: string, vars: string[]): Principal => {
    const out = execFileSync(process.execPath, [distBin('shoal'), 'token', 'create', '--config', config, '--name', name, '--role', role, ...vars.flatMap((v) => ['--var', v]), '--json'], { encoding: 'utf8' });
    return { name, token: (JSON.parse(out) as { token: string }).token };
  };
  return {
    config,
    principals: [mint('analyst-eu', 'analyst', ['provisa.user_region=eu']), mint('analyst-us', 'analyst', ['provisa.user_region=us']), mint('admin', 'admin', [])],
  };
}

/**
 * A materialized view for the chaos load: `sales.ledger_by_region` over a CSV (`ledger.csv` beside
 * the config) that the test rewrites to a new version while the fleet runs. Versions share no row,
 * so an answer names the version it was built from. Refreshed only when asked (interval 1 h).
 */
export const LEDGER_MV = 'sales.ledger_by_region';
const LEDGER_SOURCE = '  - {id: ledger-csv, type: csv, path: ledger.csv}\n';
const LEDGER_TABLES = `  - source_id: ledger-csv
    domain_id: sales
    table: ledger
    columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}, {name: amount, data_type: integer}]
  - source_id: __derived__
    domain_id: sales
    table: ledger_by_region
    materialize: true
    mv_refresh_interval: 3600
    view_sql: 'SELECT region, sum(amount) AS total, count(*) AS n FROM "ledger_csv"."default"."ledger" GROUP BY region'
    columns: [{name: region, data_type: varchar}, {name: total, data_type: bigint}, {name: n, data_type: bigint}]
`;

/** The ledger at version k: every amount scaled by k. */
export function ledgerCsv(k: number): string {
  return `id,region,amount\n1,eu,${10 * k}\n2,us,${20 * k}\n3,eu,${30 * k}\n4,apac,${5 * k}\n`;
}

/** Writes version k of the ledger atomically (readers see the old file or the new one, never half). */
export function writeLedger(dir: string, k: number): void {
  const tmp = join(dir, `.ledger.csv.${k}.tmp`);
  writeFileSync(tmp, ledgerCsv(k));
  renameSync(tmp, join(dir, 'ledger.csv'));
}

interface Case {
  readonly principal: Principal;
  readonly sql: string;
}

/** Every (principal, query) pair. */
export function fleetCases(principals: readonly Principal[]): Case[] {
  return principals.flatMap((principal) => FLEET_QUERIES.map((sql) => ({ principal, sql })));
}

const canonical = (body: string): string => JSON.stringify(JSON.parse(body));

async function ask(url: string, c: Case): Promise<{ status: number; body: string }> {
  const r = await fetch(`${url}/data/sql`, { method: 'POST', headers: { authorization: `Bearer ${c.principal.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ sql: c.sql }) });
  return { status: r.status, body: await r.text() };
}

/**
 * The oracle's answer to every case (the instance at `oracleUrl`, queried directly), and a request
 * generator whose checks hold each answer from the fleet to it: a 200 with any other body, or any
 * 4xx, is a wrong answer; a 5xx or a network error is a failover error.
 */
export async function checkedShoalLoad(oracleUrl: string, principals: readonly Principal[]): Promise<{ next: (n: number) => LoadRequest; expected: Map<string, string> }> {
  const cases = fleetCases(principals);
  const expected = new Map<string, string>();
  for (const c of cases) {
    const a = await ask(oracleUrl, c);
    if (a.status !== 200) throw new Error(`the oracle refused ${c.principal.name}: ${c.sql}: ${a.status} ${a.body}`);
    expected.set(`${c.principal.name}\n${c.sql}`, canonical(a.body));
  }
  // the principals see different rows: a mix-up between them would be caught
  const answers = new Set(expected.values());
  if (answers.size !== expected.size) throw new Error('two principals got the same answer to a query: the fixture would not catch a mix-up');
  return {
    expected,
    next: (n) => {
      const c = cases[n % cases.length]!;
      const want = expected.get(`${c.principal.name}\n${c.sql}`)!;
      return {
        method: 'POST',
        path: '/data/sql',
        headers: { authorization: `Bearer ${c.principal.token}` },
        body: JSON.stringify({ sql: c.sql }),
        check: (status, body) => {
          if (status >= 500) return 'error';
          if (status !== 200) return 'wrong';
          try {
            return canonical(body) === want ? 'ok' : 'wrong';
          } catch {
            return 'wrong';
          }
        },
      };
    },
  };
}

const LEDGER_READ = `SELECT region, total, n FROM ${LEDGER_MV} ORDER BY region`;

/** What the MV load saw: refresh outcomes, and which ledger version each snapshot served. */
export interface MvLoadStats {
  readonly outcomes: Record<string, number>;
  readonly snapshots: Map<string, number>;
  readonly live: number;
}

/**
 * MV reads and refreshes as `admin`, each answer held to a single-instance oracle for its
 * snapshot: before the fleet starts, the oracle answers the view's query over every ledger version
 * 1..`versions` (written in turn into `dir`). Under load, an MV read must give the oracle's answer
 * for a version already written (never a mix, never a version from the future), and every read of
 * one snapshot must give the same version. A refresh must be refreshed, skipped or lost_lease.
 * `bump()` writes the next version; the caller drives it.
 */
export async function checkedMvLoad(oracleUrl: string, dir: string, admin: Principal, versions: number): Promise<{ read: (n: number) => LoadRequest; refresh: (n: number) => LoadRequest; bump: () => number; oracle: readonly string[]; stats: MvLoadStats }> {
  const oracle: string[] = [''];
  for (let k = 1; k <= versions; k++) {
    writeLedger(dir, k);
    // the oracle's result cache would answer from an earlier version within its TTL
    const inv = await fetch(`${oracleUrl}/admin/cache/invalidate`, { method: 'POST', headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ table: 'sales.ledger' }) });
    if (inv.status !== 200) throw new Error(`the oracle refused a cache invalidation: ${inv.status} ${await inv.text()}`);
    const a = await ask(oracleUrl, { principal: admin, sql: 'SELECT region, sum(amount) AS total, count(*) AS n FROM sales.ledger GROUP BY region ORDER BY region' });
    if (a.status !== 200) throw new Error(`the oracle refused the ledger query at version ${k}: ${a.status} ${a.body}`);
    oracle.push(JSON.stringify((JSON.parse(a.body) as { rows: unknown }).rows));
  }
  if (new Set(oracle.slice(1)).size !== versions) throw new Error('two ledger versions gave the oracle the same answer: the fixture would not tell versions apart');
  writeLedger(dir, 1);
  let written = 1;
  const stats = { outcomes: {} as Record<string, number>, snapshots: new Map<string, number>(), live: 0 };
  const headers = { authorization: `Bearer ${admin.token}` };
  return {
    oracle,
    stats,
    bump: () => {
      if (written < versions) writeLedger(dir, ++written);
      return written;
    },
    read: () => ({
      method: 'POST',
      path: '/data/sql',
      headers,
      body: JSON.stringify({ sql: LEDGER_READ }),
      check: (status, body, h) => {
        if (status >= 500) return 'error';
        if (status !== 200) return 'wrong';
        let rows: string;
        try {
          rows = JSON.stringify((JSON.parse(body) as { rows: unknown }).rows);
        } catch {
          return 'wrong';
        }
        const k = oracle.indexOf(rows, 1);
        if (k < 1 || k > written) return 'wrong';
        const served = String(h['x-shoal-mv'] ?? '');
        const snapshot = /=snapshot:(.+)$/.exec(served)?.[1];
        if (snapshot === undefined) {
          if (!served.endsWith('=live')) return 'wrong';
          stats.live++;
          return 'ok';
        }
        const seen = stats.snapshots.get(snapshot);
        if (seen !== undefined && seen !== k) return 'wrong';
        stats.snapshots.set(snapshot, k);
        return 'ok';
      },
    }),
    refresh: () => ({
      method: 'POST',
      path: `/admin/mv/${LEDGER_MV}/refresh`,
      headers,
      check: (status, body) => {
        if (status >= 500) return 'error';
        if (status !== 200) return 'wrong';
        let outcome: string;
        try {
          outcome = String((JSON.parse(body) as { outcome: unknown }).outcome);
        } catch {
          return 'wrong';
        }
        stats.outcomes[outcome] = (stats.outcomes[outcome] ?? 0) + 1;
        if (outcome === 'failed') return 'error';
        return ['refreshed', 'skipped', 'lost_lease'].includes(outcome) ? 'ok' : 'wrong';
      },
    }),
  };
}
