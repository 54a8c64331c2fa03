/** shoal's benchmarks alone: `node dist/bench/shoal/run.js [--quick]`. */
import { ratio } from '../tik/measure.js';
import { benchResultCache } from './cache.js';
import { benchGateway } from './gateway.js';
import { benchGraphql } from './graphql.js';
import { benchHot } from './hot.js';
import { benchPlanLimits } from './plan-limits.js';

const quick = process.argv.includes('--quick');
const results = [
  ...(await benchGateway(quick ? 100_000 : 1_000_000, quick ? 3 : 7)),
  ...(await benchResultCache(quick ? 100_000 : 1_000_000, quick ? 3 : 7)),
  ...(await benchHot(quick ? 20_000 : 200_000, quick ? 3 : 7)),
  ...(await benchPlanLimits(quick ? 3 : 7)),
  ...(await benchGraphql(quick ? 2_000 : 20_000, quick ? 3 : 7)),
];
for (const r of results) {
  process.stdout.write(`${r.name.padEnd(44)} ${r.ms.toFixed(1).padStart(9)} ms  floor ${r.floorMs.toFixed(1).padStart(9)} ms  ${ratio(r).padStart(6)}×  ${r.note}\n`);
}
