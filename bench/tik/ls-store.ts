import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { memoryIo } from '../../src/tik/cli/io.js';
import { runTik } from '../../src/tik/cli/run.js';
import { FileStore } from '../../src/tik/store/file/file-store.js';
import { benchStore, benchTicket, writeTicket } from './fixture.js';
import { interleaved, readAndHash, type BenchResult } from './measure.js';

/**
 * `tik ls --all --json` over N tickets of 3 events each (upstream: 3.6 s for 10k tickets before
 * its cache), measured side by side in one run (interleaved rounds, ./measure.ts):
 * - the floors: listing every event id without bytes (`allEventIds`, what the derived index must
 *   do to know its keys still hold) and reading and hashing every event file;
 * - `ls` through a warm derived index (issue 18: ≤ 1.5× listing ids, ≤ 1 s at 10k);
 * - `ls` with the index deleted before each run (every ticket derived, the index written);
 * - `ls` without the index (`TIK_INDEX=off`: every ticket read, parsed and derived).
 * Standalone: `npm run build && node dist/bench/tik/ls-store.js [--quick]`; also in `node dist/bench/run.js`.
 */
export async function benchLs(tickets = 10_000, runs = 3): Promise<BenchResult[]> {
  const root = mkdtempSync(join(tmpdir(), 'tik-bench-ls-'));
  try {
    const def = benchStore(root);
    const ids: string[] = [];
    process.stderr.write(`ls: writing ${tickets} tickets…\n`);
    for (let i = 0; i < tickets; i++) {
      const id = benchTicket(i + 1);
      writeTicket(root, def, id, 3);
      ids.push(id);
      if ((i + 1) % 2500 === 0) process.stderr.write(`  ${i + 1}/${tickets}\n`);
    }
    const outputs = new Map<string, string>();
    const ls = (side: string, env: Record<string, string> = {}) => async () => {
      const io = memoryIo({ cwd: root, env: { TIK_ROOT: root, TIK_NOW: '2026-07-09T00:00:00Z', HOME: root, ...env } });
      const code = await runTik(['ls', '--all', '--json'], io);
      if (code !== 0 || (JSON.parse(io.stdout()) as unknown[]).length !== tickets) throw new Error(`tik ls (${side}) failed in the benchmark: ${io.stderr()}`);
      outputs.set(side, io.stdout());
    };
    const store = new FileStore(root);
    const index = store.derivedDir;
    const [listIds, hashAll, warm, cold, off] = await interleaved(runs, [
      async () => {
        if ((await store.allEventIds()).length !== tickets * 3) throw new Error('allEventIds missed events');
      },
      () => readAndHash(root, ids),
      ls('index'),
      async () => {
        rmSync(index, { recursive: true, force: true });
        await ls('cold')();
      },
      ls('off', { TIK_INDEX: 'off' }),
    ]);
    if (new Set(outputs.values()).size !== 1) throw new Error('ls through the index printed something else than ls without it');
    const what = `${tickets} tickets × 3 events`;
    return [
      { name: `tik ls --all --json, ${what}, derived index`, floorMs: listIds!, ms: warm!, note: 'floor: listing every event id (allEventIds); target ≤ 1.5×' },
      { name: `tik ls --all --json, ${what}, derived index`, floorMs: off!, ms: warm!, note: 'floor: the same ls without the index (TIK_INDEX=off)' },
      { name: `tik ls --all --json, ${what}, index rebuilt`, floorMs: off!, ms: cold!, note: 'index deleted before each run; floor: ls without the index' },
      { name: `tik ls --all --json, ${what}, no index`, floorMs: hashAll!, ms: off!, note: 'every ticket read, parsed and derived' },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes('--quick');
  for (const r of await benchLs(quick ? 1000 : 10_000, quick ? 3 : 5)) {
    process.stdout.write(`${r.name}: ${r.ms.toFixed(1)} ms; floor ${r.floorMs.toFixed(1)} ms → ${(r.ms / r.floorMs).toFixed(2)}× (${r.note})\n`);
  }
}
