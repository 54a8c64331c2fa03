import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { issueToken } from '../auth/credential-admin.js';
import { loadConfig } from '../check/load-config.js';
import { ShoalInstance } from '../instance/instance.js';
import { DEMO_CONFIG, DEMO_QUERY } from './demo-config.js';
import { generateSampleData } from './sample-data.js';

export interface DemoStep {
  readonly title: string;
  readonly role: string;
  readonly vars: Readonly<Record<string, string>>;
  readonly sql: string;
}

export const DEMO_STEPS: readonly DemoStep[] = [
  { title: 'As admin: every customer, unmasked', role: 'admin', vars: {}, sql: DEMO_QUERY },
  {
    title: "As analyst with provisa.user_region = 'eu': only EU rows (RLS), e-mail masked",
    role: 'analyst',
    vars: { 'provisa.user_region': 'eu' },
    sql: DEMO_QUERY,
  },
];

/** The access token the demo mints, so `shoal serve` on the demo config can be tried with curl. */
export interface DemoToken {
  readonly id: string;
  /** `shoal_pat_…`: shown once. */
  readonly secret: string;
  readonly role: string;
  readonly vars: Readonly<Record<string, string>>;
  readonly expiresAt: string;
}

export interface DemoResult {
  readonly dir: string;
  /** An analyst token (region eu) valid for a week. */
  readonly token: DemoToken;
  readonly steps: readonly { readonly step: DemoStep; readonly columns: readonly string[]; readonly rows: readonly (readonly unknown[])[]; readonly route: string }[];
}

/**
 * Generate the sample data and config into `dir` (default: a fresh temporary directory), start
 * an instance on embedded defaults, and run the demo queries through the governed pipeline.
 */
export async function runDemo(dirArg?: string, log: (line: string) => void = () => undefined): Promise<DemoResult> {
  const dir = dirArg ? resolve(dirArg) : mkdtempSync(join(tmpdir(), 'shoal-demo-'));
  log(`generating sample data in ${dir}`);
  const data = generateSampleData(dir);
  log(`  shop.db (SQLite): ${data.customers} customers, ${data.orders} orders; segments.csv; support/ (tik store, ${data.tickets} tickets)`);
  writeFileSync(join(dir, 'shoal.yaml'), DEMO_CONFIG);
  const { config } = loadConfig({ path: join(dir, 'shoal.yaml') });
  log('starting an instance: registry sqlite:///shoal-registry.db, in-memory DuckDB');
  const instance = await ShoalInstance.start({ config, baseDir: dir });
  try {
    const steps = [];
    for (const step of DEMO_STEPS) {
      const result = await instance.query({ sql: step.sql, role: step.role, vars: step.vars }, new AbortController().signal);
      const rows: (readonly unknown[])[] = [];
      for await (const b of result.batches) rows.push(...b);
      steps.push({ step, columns: result.columns.map((c) => c.name), rows, route: result.headers?.['x-shoal-route'] ?? 'engine' });
    }
    // the demo config has no auth: key, so `shoal serve` on it requires credentials: mint one to try
    const vars = { 'provisa.user_region': 'eu' };
    const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const { token, secret } = await issueToken(
      instance.auth!.store!,
      { name: 'demo-analyst-eu', roles: ['analyst'], vars, expiresAt, createdBy: 'operator:demo' },
      (await instance.registry.snapshot()).catalog.roles,
    );
    log(`minted access token ${token.id} (role analyst, provisa.user_region=eu, expires ${expiresAt})`);
    return { dir, steps, token: { id: token.id, secret, role: 'analyst', vars, expiresAt } };
  } finally {
    await instance.close();
  }
}
