import { mkdtempSync, renameSync, rmSync } from 'node:fs';
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
 * - `ls` with no index (set aside during the run: every ticket derived, the index written);
 * - `ls` without the index (`TIK_INDEX=off`: every ticket read, parsed and derived);
 * - `ls --where` with a `stage=` term through the warm index and without it: `stage=:s1`, which no
 *   bench ticket is at (the cost of selecting, nothing printed), and `not stage=:s1` (every row),
 *   both answered from `ls.json` alone; and `fact:f2` (every row), which reads `select.json` too.
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
    const run = async (side: string, args: readonly string[], rows: number, env: Record<string, string>) => {
      const io = memoryIo({ cwd: root, env: { TIK_ROOT: root, TIK_NOW: '2026-07-09T00:00:00Z', HOME: root, ...env } });
      const code = await runTik(['ls', '--all', ...args, '--json'], io);
      if (code !== 0 || (JSON.parse(io.stdout()) as unknown[]).length !== rows) throw new Error(`tik ls (${side}) failed in the benchmark: ${io.stderr()}`);
      outputs.set(side, io.stdout());
    };
    const ls = (side: string, env: Record<string, string> = {}) => () => run(side, [], tickets, env);
    const where = (side: string, selector: string, rows: number, env: Record<string, string> = {}) => () => run(side, ['--where', selector], rows, env);
    const store = new FileStore(root);
    const index = store.derivedDir;
    const kept = `${index}.warm`;
    const [listIds, hashAll, warm, cold, off, noneWarm, noneOff, allWarm, allOff, factWarm, factOff] = await interleaved(runs, [
      async () => {
        if ((await store.allEventIds()).length !== tickets * 3) throw new Error('allEventIds missed events');
      },
      () => readAndHash(root, ids),
      ls('index'),
      async () => {
        // the warm index is set aside, not deleted, so the sides after this one still find it
        renameSync(index, kept);
        try {
          await ls('cold')();
        } finally {
          rmSync(index, { recursive: true, force: true });
          renameSync(kept, index);
        }
      },
      ls('off', { TIK_INDEX: 'off' }),
      where('none index', 'stage=:s1', 0),
      where('none off', 'stage=:s1', 0, { TIK_INDEX: 'off' }),
      where('all index', 'not stage=:s1', tickets),
      where('all off', 'not stage=:s1', tickets, { TIK_INDEX: 'off' }),
      where('fact index', 'fact:f2', tickets),
      where('fact off', 'fact:f2', tickets, { TIK_INDEX: 'off' }),
    ]);
    const same = (sides: string[]) => new Set(sides.map((s) => outputs.get(s))).size === 1;
    if (!same(['index', 'cold', 'off', 'all index', 'all off', 'fact index', 'fact off']) || !same(['none index', 'none off'])) throw new Error('ls through the index printed something else than ls without it');
    const what = `${tickets} tickets × 3 events`;
    return [
      { name: `tik ls --all --json, ${what}, derived index`, floorMs: listIds!, ms: warm!, note: 'floor: listing every event id (allEventIds); target ≤ 1.5×' },
      { name: `tik ls --all --json, ${what}, derived index`, floorMs: off!, ms: warm!, note: 'floor: the same ls without the index (TIK_INDEX=off)' },
      { name: `tik ls --all --json, ${what}, index rebuilt`, floorMs: off!, ms: cold!, note: 'index deleted before each run; floor: ls without the index' },
      { name: `tik ls --all --json, ${what}, no index`, floorMs: hashAll!, ms: off!, note: 'every ticket read, parsed and derived' },
      { name: `tik ls --all --where stage=:s1 --json (no row matches), ${what}, derived index`, floorMs: noneOff!, ms: noneWarm!, note: 'floor: the same selection without the index (TIK_INDEX=off)' },
      { name: `tik ls --all --where stage=:s1 --json (no row matches), ${what}, derived index`, floorMs: listIds!, ms: noneWarm!, note: 'floor: listing every event id' },
      { name: `tik ls --all --where 'not stage=:s1' --json (every row), ${what}, derived index`, floorMs: allOff!, ms: allWarm!, note: 'floor: the same selection without the index (TIK_INDEX=off)' },
      { name: `tik ls --all --where 'not stage=:s1' --json (every row), ${what}, derived index`, floorMs: warm!, ms: allWarm!, note: 'floor: ls without a selector through the index' },
      { name: `tik ls --all --where fact:f2 --json (every row), ${what}, derived index`, floorMs: factOff!, ms: factWarm!, note: 'floor: the same selection without the index (TIK_INDEX=off)' },
      { name: `tik ls --all --where fact:f2 --json (every row), ${what}, derived index`, floorMs: warm!, ms: factWarm!, note: 'floor: ls without a selector through the index' },
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
