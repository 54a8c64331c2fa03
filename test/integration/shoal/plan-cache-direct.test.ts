/**
 * The plan cache on the direct route to a real PostgreSQL: queries that differ only in their
 * comparison literals share one plan, run with bind parameters, and answer exactly what an
 * instance without a plan cache answers, role by role (RLS and masks included).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { PLAN_CACHE_TOTAL } from '../../../src/shoal/instance/plan-cache.js';
import { service } from '../../support/service.js';

const postgres = service('postgres');

describe.skipIf(postgres.skip)('plan cache on the direct route (PostgreSQL)', () => {
  let dir: string;
  let admin: pg.Client;
  let db: string;
  let cached: ShoalInstance;
  let uncached: ShoalInstance;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-plan-cache-'));
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    db = `plan_cache_${process.pid}_${Date.now()}`;
    await admin.query(`CREATE DATABASE ${db}`);
    const base = new URL(postgres.url!);
    const src = new pg.Client({ connectionString: `postgresql://${base.username}@${base.host}/${db}` });
    await src.connect();
    await src.query(`CREATE TABLE facts AS SELECT i::bigint AS id, (ARRAY['eu','us','apac'])[1 + i % 3] AS region,
      'user' || i || '@example.com' AS email FROM generate_series(0, 99) i`);
    await src.end();
    const yaml = (size: number) => `server: {limits: {plan_cache_size: ${size}}}
control_plane: {tenant_url: "sqlite:///registry-${size}.db"}
domains: [{id: bench}]
sources: [{id: pg, type: postgresql, host: ${base.hostname}, port: ${base.port}, database: ${db}, username: ${base.username}}]
tables:
  - source_id: pg
    domain_id: bench
    schema: public
    table: facts
    columns:
      - {name: id, data_type: bigint}
      - {name: region, data_type: varchar}
      - {name: email, data_type: varchar, unmasked_to: [admin], mask_type: regex, mask_pattern: "^(.{2}).*(@.*)$", mask_replace: "$1***$2"}
roles:
  - {id: admin, capabilities: [admin, full_results], domain_access: ['*']}
  - {id: analyst, capabilities: [full_results], domain_access: [bench]}
rls_rules:
  - {table_id: facts, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}
`;
    writeFileSync(join(dir, 'cached.yaml'), yaml(100));
    writeFileSync(join(dir, 'uncached.yaml'), yaml(0));
    cached = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'cached.yaml') }).config, baseDir: dir, resultCache: false });
    uncached = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'uncached.yaml') }).config, baseDir: dir, resultCache: false });
  }, 60_000);

  afterAll(async () => {
    await cached?.close();
    await uncached?.close();
    await admin?.query(`DROP DATABASE IF EXISTS ${db}`).catch(() => undefined);
    await admin?.end();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function rows(instance: ShoalInstance, sql: string, role: string, vars: Record<string, string> = {}) {
    const r = await instance.query({ sql, role, vars }, new AbortController().signal);
    const out: unknown[] = [];
    for await (const b of r.batches) out.push(...b);
    return { route: r.headers?.['x-shoal-route'], columns: r.columns, rows: out };
  }

  it('literal-lifted lookups return the rows an uncached instance returns, for every role', async () => {
    const texts = (n: number) => [
      `SELECT id, region, email FROM bench.facts WHERE id = ${n}`,
      `SELECT id, email FROM bench.facts WHERE region = '${['eu', 'us', 'apac'][n % 3]}' AND id IN (${n}, ${n + 3}, ${n + 6}) ORDER BY id`,
      `SELECT count(*) AS n FROM bench.facts WHERE id >= ${n} AND id < ${n * 2 + 5}`,
    ];
    const before = cached.metrics.value(PLAN_CACHE_TOTAL, { outcome: 'hit' });
    for (let n = 0; n < 12; n++) {
      for (const sql of texts(n)) {
        for (const [role, vars] of [['admin', {}], ['analyst', { 'provisa.user_region': 'eu' }], ['analyst', { 'provisa.user_region': 'us' }]] as const) {
          const want = await rows(uncached, sql, role, vars);
          const got = await rows(cached, sql, role, vars);
          expect(got.route).toBe('direct:pg');
          expect(got).toEqual(want);
        }
      }
    }
    // 3 shapes × 3 (role, vars) keys planned once each; every other request is a hit
    expect(cached.metrics.value(PLAN_CACHE_TOTAL, { outcome: 'miss' })).toBe(9);
    expect(cached.metrics.value(PLAN_CACHE_TOTAL, { outcome: 'hit' }) - before).toBe(12 * 9 - 9);
    expect(uncached.metrics.value(PLAN_CACHE_TOTAL, { outcome: 'hit' })).toBe(0);
  }, 60_000);

  it('a lifted lookup runs with bind parameters, not inlined literals', async () => {
    const job = { sql: 'SELECT id, email FROM bench.facts WHERE id = 42', role: 'admin', vars: {}, engine: 'duckdb' as const, hot: [], verdict: false };
    const r = await rows(cached, 'SELECT id, email FROM bench.facts WHERE id = 42', 'admin');
    expect(r.rows).toEqual([[42, 'user42@example.com']]);
    const probe = await cached.plans.plan({ ...job, sql: 'SELECT id, email FROM bench.facts WHERE id = 7' }, cachedGeneration(cached), async () => {
      throw new Error('a hit must not plan');
    });
    expect(probe.params).toEqual([7]);
    expect(probe.plan.sql).toMatch(/\$1::int4/);
    expect(probe.plan.sql).not.toMatch(/\b7\b/);
  });
});

/** The catalog generation the instance serves (the plan cache's key holds it). */
function cachedGeneration(instance: ShoalInstance): number {
  return (instance as unknown as { state: { generation: number } }).state.generation;
}
