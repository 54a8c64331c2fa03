/**
 * What planning costs at the SQL limits (`server.limits`, defaults): a text at the token limit
 * (a long AND chain, the parser's worst shape), at the literal limit (a long IN list) and a wide
 * select list, each planned in full (parse, validate, govern, route, generate). The floor is the
 * linear scan that checks the limits on the same text; the absolute time is what one maximal
 * request would hold the event loop for if it were planned there.
 *
 * Then the planner pool (src/shoal/instance/planner-pool.ts): the longest event-loop delay while
 * the maximal AND chain is planned on the loop versus in a planner thread (floor: the thread),
 * and what the hop to a thread costs a short text (floor: planned on the loop).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { DEFAULT_LIMITS, type LimitsConfig } from '../../src/shoal/config/limits.js';
import { governanceOf, type PlanJob } from '../../src/shoal/instance/plan-job.js';
import { PlannerPool, type PlanCatalog } from '../../src/shoal/instance/planner-pool.js';
import { loadConfig } from '../../src/shoal/check/load-config.js';
import { catalogFromConfig, planQuery } from '../../src/shoal/sql/index.js';
import { checkSqlLimits } from '../../src/shoal/sql/sql-limits.js';
import { median, type BenchResult } from '../tik/measure.js';

const CONFIG = `domains: [{id: ops}]
sources: [{id: nums, type: csv, path: nums.csv}]
tables:
  - {source_id: nums, domain_id: ops, table: nums, columns: [{name: id, data_type: bigint}, {name: label, data_type: varchar}]}
roles:
  - {id: analyst, capabilities: [query_development], domain_access: [ops]}
rls_rules:
  - {table_id: nums, role_id: analyst, filter: "label <> 'hidden'"}
`;

/** The largest text of each shape that the default limits accept. */
function maximalTexts(limits: LimitsConfig): readonly (readonly [string, string])[] {
  const fitsLimits = (sql: string): boolean => {
    try {
      checkSqlLimits(sql, limits);
      return true;
    } catch {
      return false;
    }
  };
  const fits = (make: (n: number) => string): string => {
    let n = 1;
    while (fitsLimits(make(n * 2))) n *= 2;
    let hi = n * 2;
    while (hi - n > 1) {
      const mid = Math.floor((n + hi) / 2);
      if (fitsLimits(make(mid))) n = mid;
      else hi = mid;
    }
    return make(n);
  };
  return [
    ['AND chain at the token limit', fits((n) => `SELECT id FROM ops.nums WHERE ${Array.from({ length: n }, (_, i) => `id <> ${i % 997}`).join(' AND ')}`)],
    ['IN list at the literal limit', fits((n) => `SELECT id FROM ops.nums WHERE id IN (${Array.from({ length: n }, (_, i) => i).join(', ')})`)],
    ['select list at the token limit', fits((n) => `SELECT ${Array.from({ length: n }, (_, i) => `id AS c${i}`).join(', ')} FROM ops.nums`)],
  ];
}

/** `limits`: the limits to plan at (default: the shipped defaults). */
export async function benchPlanLimits(runs: number, limits: LimitsConfig = DEFAULT_LIMITS): Promise<BenchResult[]> {
  const catalog = catalogFromConfig(loadConfig(CONFIG).config);
  const out: BenchResult[] = [];
  for (const [shape, sql] of maximalTexts(limits)) {
    const floorMs = await median(runs, () => checkSqlLimits(sql, limits));
    const ms = await median(runs, () => planQuery({ sql, role: 'analyst' }, catalog));
    out.push({ name: `plan: ${shape}`, floorMs, ms, note: `${Buffer.byteLength(sql)} bytes; floor: the limits scan` });
  }
  out.push(...(await benchPlannerPool(runs, limits)));
  return out;
}

/** The longest event-loop delay (ms) while `f` runs, sampled every millisecond. */
async function loopHold(f: () => Promise<unknown>): Promise<number> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  // the sampler's first tick only starts its clock: let it tick before the work
  await new Promise((r) => setTimeout(r, 10));
  await f();
  await new Promise((r) => setTimeout(r, 5)); // one more sample after the work
  h.disable();
  return h.max / 1e6;
}

async function benchPlannerPool(runs: number, limits: LimitsConfig): Promise<BenchResult[]> {
  const model = loadConfig(CONFIG).config;
  const catalog: PlanCatalog = { generation: 1, model, governance: governanceOf(model) };
  const [, chain] = maximalTexts(limits)[0]!;
  const job = (sql: string): PlanJob => ({ sql, role: 'analyst', vars: {}, verdict: true });
  const signal = new AbortController().signal;
  const onLoop = new PlannerPool({ threads: 0 });
  const threaded = new PlannerPool({ threads: 1 });
  const hop = new PlannerPool({ threads: 1, inlineTokens: 0 });
  try {
    const tokens = checkSqlLimits(chain, limits).tokens;
    const holdOnLoop: number[] = [];
    const holdThreaded: number[] = [];
    await threaded.plan(job(chain), catalog, tokens, signal); // warm the thread
    for (let i = 0; i < runs; i++) {
      holdOnLoop.push(await loopHold(() => onLoop.plan(job(chain), catalog, tokens, signal)));
      holdThreaded.push(await loopHold(() => threaded.plan(job(chain), catalog, tokens, signal)));
    }
    const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const point = 'SELECT id, label FROM ops.nums WHERE id = 42';
    const pointTokens = checkSqlLimits(point, limits).tokens;
    const inline = await median(runs * 20, () => onLoop.plan(job(point), catalog, pointTokens, signal));
    const viaThread = await median(runs * 20, () => hop.plan(job(point), catalog, pointTokens, signal));
    return [
      { name: 'loop held: AND chain, on the loop vs thread', floorMs: mid(holdThreaded), ms: mid(holdOnLoop), note: 'longest event-loop delay while one maximal text is planned; floor: in a planner thread' },
      { name: 'plan: point lookup via a thread', floorMs: inline, ms: viaThread, note: 'the hop to a planner thread (short texts are planned on the loop); floor: on the loop' },
    ];
  } finally {
    await Promise.all([onLoop.close(), threaded.close(), hop.close()]);
  }
}
