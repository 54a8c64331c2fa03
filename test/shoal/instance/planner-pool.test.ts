/**
 * The planner pool (src/shoal/instance/planner-pool.ts) with its compiled thread script
 * (dist/, `npm run build`): a long text is planned in a thread exactly as on the event loop, with
 * the same typed errors; the event loop keeps turning meanwhile; an abort ends the plan and the
 * pool keeps serving; the wait queue is bounded.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { isCodedError } from '../../../src/core/errors.js';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalError } from '../../../src/shoal/errors.js';
import { governanceOf, runPlanJob, type PlanJob } from '../../../src/shoal/instance/plan-job.js';
import { PLANNING_IN_FLIGHT, PLANS_TOTAL, PlannerPool, type PlanCatalog } from '../../../src/shoal/instance/planner-pool.js';
import { MetricsRegistry } from '../../../src/shoal/server/metrics.js';
import { measureSql } from '../../../src/shoal/sql/sql-limits.js';

const WORKER = resolve(process.cwd(), 'dist/src/shoal/instance/planner-worker.js');

const { config } = loadConfig(`domains: [{id: ops}]
sources: [{id: nums, type: csv, path: /tmp/nums.csv}]
tables:
  - {source_id: nums, domain_id: ops, table: nums, columns: [{name: id, data_type: bigint}, {name: label, data_type: varchar}]}
roles:
  - {id: analyst, capabilities: [query_development], domain_access: [ops]}
rls_rules:
  - {table_id: nums, role_id: analyst, filter: "label <> 'hidden'"}
`);
const catalog: PlanCatalog = { generation: 1, model: config, governance: governanceOf(config) };
const chain = (n: number, salt = 0) => `SELECT id FROM ops.nums WHERE ${Array.from({ length: n }, (_, i) => `id <> ${salt * 1000 + i}`).join(' AND ')}`;
const job = (sql: string): PlanJob => ({ sql, role: 'analyst', vars: {}, verdict: true });
const tokens = (sql: string) => measureSql(sql).tokens;
const never = new AbortController().signal;

describe('the planner pool', { timeout: 120_000 }, () => {
  const pools: PlannerPool[] = [];
  const pool = (o: Partial<ConstructorParameters<typeof PlannerPool>[0]> = {}) => {
    const p = new PlannerPool({ threads: 1, workerUrl: pathToFileURL(WORKER), ...o });
    pools.push(p);
    return p;
  };
  afterEach(async () => {
    for (const p of pools.splice(0)) await p.close();
  });

  it('has its compiled thread script (npm run build)', () => {
    expect(existsSync(WORKER)).toBe(true);
  });

  it('plans a long text in a thread exactly as on the event loop', async () => {
    const metrics = new MetricsRegistry();
    const sql = chain(30);
    const planned = await pool({ metrics }).plan(job(sql), catalog, tokens(sql), never);
    expect(planned).toEqual(runPlanJob(job(sql), catalog.governance));
    expect(metrics.value(PLANS_TOTAL, { planner: 'thread' })).toBe(1);
    expect(metrics.value(PLANNING_IN_FLIGHT)).toBe(0);
  });

  it('a short text is planned on the event loop', async () => {
    const metrics = new MetricsRegistry();
    const sql = 'SELECT id FROM ops.nums WHERE id = 1';
    await pool({ metrics }).plan(job(sql), catalog, tokens(sql), never);
    expect(metrics.value(PLANS_TOTAL, { planner: 'event_loop' })).toBe(1);
    expect(metrics.value(PLANS_TOTAL, { planner: 'thread' })).toBe(0);
  });

  it('a planner error crosses the thread as the same typed error (code, message, position, hint)', async () => {
    const sql = `${chain(30)} AND nosuch = 1`;
    let inline: unknown;
    try {
      runPlanJob(job(sql), catalog.governance);
    } catch (e) {
      inline = e;
    }
    const threaded: unknown = await pool().plan(job(sql), catalog, tokens(sql), never).catch((e: unknown) => e);
    expect(isCodedError(threaded) && isCodedError(inline)).toBe(true);
    const fields = (e: unknown) => (isCodedError(e) ? { code: e.code, message: e.message, position: e.position, hint: e.hint } : undefined);
    expect(fields(threaded)).toEqual(fields(inline));
    expect(fields(threaded)?.code).toBe('SQL_UNKNOWN_COLUMN');
  });

  it('the event loop keeps turning while a thread plans', async () => {
    const sql = chain(100);
    let turns = 0;
    let planning = true;
    const spin = (): void => {
      turns++;
      if (planning) setImmediate(spin);
    };
    const p = pool().plan(job(sql), catalog, tokens(sql), never);
    setImmediate(spin);
    await p;
    planning = false;
    expect(turns).toBeGreaterThan(1);
  });

  it('an abort ends the plan in progress with the signal reason, and the pool plans the next text', async () => {
    const planner = pool();
    const controller = new AbortController();
    const sql = chain(400);
    const running = planner.plan(job(sql), catalog, tokens(sql), controller.signal);
    const reason = new ShoalError('QUERY_TIMEOUT', 'too long');
    setImmediate(() => controller.abort(reason));
    await expect(running).rejects.toBe(reason);
    const next = chain(20, 1);
    expect((await planner.plan(job(next), catalog, tokens(next), never)).plan.tables).toEqual(['ops.nums']);
  });

  it('refuses with PLANNER_BUSY when the wait queue is full', async () => {
    const planner = pool({ maxQueued: 1 });
    const sql = chain(20);
    const first = planner.plan(job(sql), catalog, tokens(sql), never); // running
    const second = planner.plan(job(chain(20, 1)), catalog, tokens(sql), never); // waiting
    const third = await planner.plan(job(chain(20, 2)), catalog, tokens(sql), never).catch((e: unknown) => e);
    expect(isCodedError(third) && third.code).toBe('PLANNER_BUSY');
    await Promise.all([first, second]);
  });

  it('a new catalog generation reaches the thread', async () => {
    const planner = pool();
    const sql = chain(20);
    await planner.plan(job(sql), catalog, tokens(sql), never);
    const renamed = loadConfig(`domains: [{id: ops}]
sources: [{id: nums, type: csv, path: /tmp/nums.csv}]
tables:
  - {source_id: nums, domain_id: ops, table: nums, alias: numbers, columns: [{name: id, data_type: bigint}]}
roles:
  - {id: analyst, capabilities: [query_development], domain_access: [ops]}
`).config;
    const next: PlanCatalog = { generation: 2, model: renamed, governance: governanceOf(renamed) };
    const moved = sql.replace('ops.nums', 'ops.numbers');
    expect((await planner.plan(job(moved), next, tokens(moved), never)).plan.tables).toEqual(['ops.numbers']);
  });
});
