/**
 * shoal's gateway benchmarks alone: `node dist/bench/shoal/gateway-run.js [--quick] [--direct] [--rows N] [--runs N]`
 * (`--direct`: only the direct-route pairs against raw `pg`).
 */
import { ratio } from '../tik/measure.js';
import { benchDirectOnly, benchGateway } from './gateway.js';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const quick = process.argv.includes('--quick');
const rows = arg('--rows', quick ? 100_000 : 1_000_000);
const runs = arg('--runs', quick ? 3 : 7);
const results = process.argv.includes('--direct') ? await benchDirectOnly(Math.min(rows, 100_000), runs) : await benchGateway(rows, runs);
for (const r of results) {
  process.stdout.write(`${r.name.padEnd(44)} ${r.ms.toFixed(1).padStart(9)} ms  floor ${r.floorMs.toFixed(1).padStart(9)} ms  ${ratio(r).padStart(6)}×  ${r.note}\n`);
}
