/**
 * A shoal config for fleet tests and benches: the demo's sample data (SQLite ⋈ CSV ⋈ tik) on
 * embedded stores a fleet on one machine shares (the SQLite registry file and the snapshot
 * directory beside the config), three principals with access tokens, and governed queries whose
 * answers differ per principal (row-level security, masks). The oracle is one `shoal serve` of
 * the same config, queried directly.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
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
  writeFileSync(config, registryUrl === undefined ? DEMO_CONFIG : DEMO_CONFIG.replace(embedded, `tenant_url: "${registryUrl}"`));
  const mint = (name: string, role: string, vars: string[]): Principal => {
    const out = execFileSync(process.execPath, [distBin('shoal'), 'token', 'create', '--config', config, '--name', name, '--role', role, ...vars.flatMap((v) => ['--var', v]), '--json'], { encoding: 'utf8' });
    return { name, token: (JSON.parse(out) as { token: string }).token };
  };
  return {
    config,
    principals: [mint('analyst-eu', 'analyst', ['provisa.user_region=eu']), mint('analyst-us', 'analyst', ['provisa.user_region=us']), mint('admin', 'admin', [])],
  };
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
