/** shoal's gateway benchmarks alone: `node dist/bench/shoal/gateway-run.js [--quick] [--rows N] [--runs N]`. */
import { ratio } from '../tik/measure.js';
import { benchGateway } from './gateway.js';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const quick = process.argv.includes('--quick');
for (const r of await benchGateway(arg('--rows', quick ? 100_000 : 1_000_000), arg('--runs', quick ? 3 : 7))) {
  process.stdout.write(`${r.name.padEnd(44)} ${r.ms.toFixed(1).padStart(9)} ms  floor ${r.floorMs.toFixed(1).padStart(9)} ms  ${ratio(r).padStart(6)}×  ${r.note}\n`);
}
