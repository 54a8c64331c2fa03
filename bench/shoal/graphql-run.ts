/** `/graphql` against `/data/sql`: `node dist/bench/shoal/graphql-run.js [--quick]`. */
import { ratio } from '../tik/measure.js';
import { benchGraphql } from './graphql.js';

const quick = process.argv.includes('--quick');
for (const r of await benchGraphql(quick ? 2_000 : 20_000, quick ? 3 : 7)) {
  process.stdout.write(`${r.name.padEnd(44)} ${r.ms.toFixed(1).padStart(9)} ms  floor ${r.floorMs.toFixed(1).padStart(9)} ms  ${ratio(r).padStart(6)}×  ${r.note}\n`);
}
