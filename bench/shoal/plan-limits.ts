/**
 * What planning costs at the SQL limits (`server.limits`, defaults): a text at the token limit
 * (a long AND chain, the parser's worst shape), at the literal limit (a long IN list) and a wide
 * select list, each planned in full (parse, validate, govern, route, generate). The floor is the
 * linear scan that checks the limits on the same text; the absolute time says how long one
 * maximal request holds the event loop on this host.
 */
import { DEFAULT_LIMITS, type LimitsConfig } from '../../src/shoal/config/limits.js';
import { loadConfig } from '../../src/shoal/config/load-config.js';
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
  return out;
}
