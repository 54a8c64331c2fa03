/** shoal's hot-table benchmarks alone: `node dist/bench/shoal/hot-run.js [--quick]`. */
import { ratio } from '../tik/measure.js';
import { benchHot } from './hot.js';

const quick = process.argv.includes('--quick');
for (const r of await benchHot(quick ? 20_000 : 200_000, quick ? 3 : 7)) {
  // hot ÷ live, and its inverse: the headline target is "hot ≥ 5× faster than live"
  const faster = `hot ${(r.floorMs / r.ms).toFixed(1)}× faster`;
  process.stdout.write(`${r.name.padEnd(46)} ${r.ms.toFixed(1).padStart(9)} ms  floor ${r.floorMs.toFixed(1).padStart(9)} ms  ${ratio(r).padStart(6)}×  ${faster.padEnd(18)}  ${r.note}\n`);
}
