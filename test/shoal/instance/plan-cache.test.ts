/**
 * The plan cache against the real planner: a cached plan is always the plan the planner would make
 * now for the same role, session values and catalog generation, and literal lifting serves texts
 * that differ only in comparison operands from one template.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { catalogOf } from '../../../src/shoal/config/model.js';
import { keyOf, PLAN_CACHE_TOTAL, PlanCache } from '../../../src/shoal/instance/plan-cache.js';
import { governanceOf, runPlanJob, type PlanJob } from '../../../src/shoal/instance/plan-job.js';
import { MetricsRegistry } from '../../../src/shoal/server/metrics.js';

const dir = mkdtempSync(join(tmpdir(), 'shoal-plan-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function catalog(rls: string | undefined) {
  const file = join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, `
sources: [{id: files, type: csv, path: facts.csv}, {id: db, type: sqlite, path: shop.db}]
domains: [{id: bench}]
tables:
  - source_id: files
    domain_id: bench
    table: facts
    columns:
      - {name: id, data_type: bigint}
      - {name: region, data_type: varchar}
      - {name: email, data_type: varchar, unmasked_to: [admin], mask_type: regex, mask_pattern: "^(.{2}).*(@.*)$", mask_replace: "$1***$2"}
  - source_id: db
    domain_id: bench
    table: orders
    columns:
      - {name: id, data_type: integer}
      - {name: region, data_type: varchar}
roles:
  - {id: admin, capabilities: [admin, full_results], domain_access: ['*']}
  - {id: analyst, domain_access: [bench]}
${rls ? `rls_rules:\n  - {table_id: facts, role_id: analyst, filter: "${rls}"}\n  - {table_id: orders, role_id: analyst, filter: "${rls}"}` : ''}
`);
  return governanceOf(catalogOf(loadConfig({ path: file }).config));
}

// generation 1 filters the analyst by session region; generation 2 (a new epoch) by a fixed value
const generations = new Map([
  [1, catalog("region = current_setting('provisa.user_region')")],
  [2, catalog("region = 'apac'")],
]);

const job = (sql: string, role: string, vars: Record<string, string> = {}): PlanJob => ({ sql, role, vars, verdict: false });
const uncached = (j: PlanJob, generation: number) => runPlanJob(j, generations.get(generation)!);
const planner = (generation: number) => async (j: PlanJob) => uncached(j, generation);

const TEXTS = [
  (n: number) => `SELECT id, region, email FROM bench.facts WHERE id = ${n}`,
  (n: number) => `SELECT count(*) AS n FROM bench.facts WHERE region = 'r${n}' AND id IN (${n}, ${n + 1})`,
  (n: number) => `SELECT id FROM bench.orders WHERE id >= ${n} ORDER BY id LIMIT ${1 + (n % 3)}`,
  (n: number) => `SELECT id FROM bench.facts WHERE id = ${n} LIMIT 1`,
];

describe('the plan cache never changes what governance decides', () => {
  it('a cached plan is the uncached plan for the same role, session values and generation (any order of requests)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            text: fc.integer({ min: 0, max: TEXTS.length - 1 }),
            n: fc.integer({ min: 0, max: 3 }),
            role: fc.constantFrom('admin', 'analyst'),
            region: fc.constantFrom('eu', 'us'),
            generation: fc.constantFrom(1, 2),
          }),
          { minLength: 1, maxLength: 25 },
        ),
        async (requests) => {
          const cache = new PlanCache({ size: 8 });
          for (const r of requests) {
            const j = job(TEXTS[r.text]!(r.n), r.role, { 'provisa.user_region': r.region });
            const got = await cache.plan(j, r.generation, planner(r.generation));
            const want = uncached(j, r.generation).plan;
            // the direct route binds lifted literals; the engine route runs exactly the uncached text
            if (got.params.length === 0) expect(got.plan).toEqual(want);
            else expect({ ...got.plan, sql: inline(got.plan.sql, got.params) }).toEqual(want);
          }
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);

  it('texts differing only in comparison literals share one plan; LIMIT counts and the clock do not', async () => {
    const metrics = new MetricsRegistry();
    const cache = new PlanCache({ size: 100, metrics });
    const p = planner(1);
    for (let id = 0; id < 5; id++) await cache.plan(job(`SELECT id, email FROM bench.facts WHERE id = ${id}`, 'admin'), 1, p);
    expect(metrics.value(PLAN_CACHE_TOTAL, { outcome: 'miss' })).toBe(1);
    expect(metrics.value(PLAN_CACHE_TOTAL, { outcome: 'hit' })).toBe(4);
    const five = await cache.plan(job('SELECT id FROM bench.facts LIMIT 5', 'admin'), 1, p);
    const ten = await cache.plan(job('SELECT id FROM bench.facts LIMIT 10', 'admin'), 1, p);
    expect([five.plan.sql, ten.plan.sql]).toEqual([expect.stringMatching(/LIMIT 5$/), expect.stringMatching(/LIMIT 10$/)]);
    expect(metrics.value(PLAN_CACHE_TOTAL, { outcome: 'miss' })).toBe(3);
    // now() is a literal in the plan: never stored
    const clock = job('SELECT id FROM bench.facts WHERE now() > CAST(\'2020-01-01\' AS timestamp)', 'admin');
    await cache.plan(clock, 1, p);
    await cache.plan(clock, 1, p);
    expect(metrics.value(PLAN_CACHE_TOTAL, { outcome: 'miss' })).toBe(5);
  });

  it('the role, the session values and the generation are each part of the key', async () => {
    const cache = new PlanCache({ size: 100 });
    const sql = 'SELECT id, email FROM bench.facts WHERE id = 1';
    const admin = await cache.plan(job(sql, 'admin'), 1, planner(1));
    const analystEu = await cache.plan(job(sql, 'analyst', { 'provisa.user_region': 'eu' }), 1, planner(1));
    const analystUs = await cache.plan(job(sql, 'analyst', { 'provisa.user_region': 'us' }), 1, planner(1));
    const nextEpoch = await cache.plan(job(sql, 'analyst', { 'provisa.user_region': 'us' }), 2, planner(2));
    expect(admin.plan.sql).not.toMatch(/region = /);
    expect(analystEu.plan.sql).toMatch(/region = 'eu'/);
    expect(analystUs.plan.sql).toMatch(/region = 'us'/);
    expect(nextEpoch.plan.sql).toMatch(/region = 'apac'/);
  });

  it('a session value that looks like a lifting marker is never rewritten by a later request\'s literal', async () => {
    // the RLS filter writes the session value into the plan; if it equals the marker of the text's
    // first string literal, a template would later fill the request's literal into the filter too
    const cache = new PlanCache({ size: 100 });
    const vars = { 'provisa.user_region': 'zq9lit0zq' };
    const text = (r: string) => `SELECT count(*) AS n FROM bench.facts WHERE region = '${r}'`;
    await cache.plan(job(text('zq9lit0zq'), 'analyst', vars), 1, planner(1));
    const later = await cache.plan(job(text('eu'), 'analyst', vars), 1, planner(1));
    const want = uncached(job(text('eu'), 'analyst', vars), 1).plan;
    expect(later.params.length === 0 ? later.plan.sql : inline(later.plan.sql, later.params)).toBe(want.sql);
  });
});

/** The parameterised text with its parameters written back as literals (what the uncached planner generates). */
function inline(sql: string, bound: readonly unknown[]): string {
  const params = [...bound];
  return sql.replace(/\$(\d+)(::int[48])?|\?/g, (m, n: string | undefined) => {
    const v = n === undefined ? params.shift() : params[Number(n) - 1];
    return typeof v === 'string' ? `'${v}'` : String(v);
  });
}

describe('keyOf', () => {
  it('the common request (no domains, session values or hot copies) gets the key every other request is built the same way to', () => {
    const general = (job: PlanJob, generation: number): string =>
      JSON.stringify([generation, job.role, job.domains ? [...job.domains].sort() : null, job.engine ?? 'duckdb', Object.entries(job.vars), job.hot ? [] : null, job.verdict]);
    for (const role of ['admin', 'a "quoted" role', 'r\u0001\\x', 'rôle']) {
      for (const hot of [undefined, []]) {
        for (const verdict of [true, false]) {
          for (const engine of [undefined, 'duckdb', 'trino'] as const) {
            const job: PlanJob = { sql: 'SELECT 1', role, vars: {}, verdict, ...(hot ? { hot } : {}), ...(engine ? { engine } : {}) };
            expect(keyOf(job, 7)).toBe(general(job, 7));
            expect(keyOf(job, 7)).not.toBe(keyOf({ ...job, vars: { a: 'b' } }, 7));
            expect(keyOf(job, 7)).not.toBe(keyOf({ ...job, domains: [] }, 7));
          }
        }
      }
    }
  });
});
