/**
 * Runs every benchmark and prints each as a ratio to its floor, measured side by side in this run
 * (never a timed assertion). `npm run bench`; `node dist/bench/run.js --quick` for small sizes.
 */
import { benchCliStartup } from './tik/cli-startup.js';
import { benchDeriveTicket } from './tik/derive-ticket.js';
import { benchEdnRead } from './tik/edn-read.js';
import { benchLs } from './tik/ls-store.js';
import { benchStatusLoad, statusLoadSizes } from './tik/status-load.js';
import { benchSyncIndex } from './tik/sync-index.js';
import { ratio, type BenchResult } from './tik/measure.js';

const quick = process.argv.includes('--quick');

const status = await benchStatusLoad(statusLoadSizes(quick));
const edn = await benchEdnRead(quick ? [0.25, 0.5, 1, 2] : [1, 2, 4, 8], quick ? 3 : 2);
const results: BenchResult[] = [
  ...(await benchDeriveTicket(quick ? 800 : 8000, quick ? 3 : 5)),
  ...(await benchLs(quick ? 1000 : 10_000, quick ? 2 : 3)),
  ...status.results,
  ...(await benchSyncIndex(quick ? 100 : 1000, quick ? 3 : 5)),
  ...edn.results,
  ...(await benchCliStartup(quick ? 5 : 15)),
];

const rows = results.map((r) => [r.name, `${r.ms.toFixed(1)} ms`, `${r.floorMs.toFixed(1)} ms`, `${ratio(r)}×`, r.note]);
const header = ['benchmark', 'time', 'floor', 'ratio', 'what (floor: read+hash unless said)'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
process.stdout.write(`${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n${rows.map(line).join('\n')}\n`);
process.stdout.write(`\n${status.lines.join('\n')}\n`);
process.stdout.write(`\n${edn.lines.join('\n')}\n`);
