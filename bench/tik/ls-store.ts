import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../src/tik/cli/io.js';
import { runTik } from '../../src/tik/cli/run.js';
import { benchStore, benchTicket, writeTicket } from './fixture.js';
import { median, readAndHash, type BenchResult } from './measure.js';

/**
 * `tik ls --all --json` over N tickets of 3 events each (upstream: 3.6 s for 10k tickets before
 * its cache), side by side with the floor: read and hash the same event files.
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
    let code = 0;
    let out = '';
    const floor = await median(runs, () => readAndHash(root, ids));
    const ls = await median(runs, async () => {
      const io = memoryIo({ cwd: root, env: { TIK_ROOT: root, TIK_NOW: '2026-07-09T00:00:00Z', HOME: root } });
      code = await runTik(['ls', '--all', '--json'], io);
      out = io.stdout();
    });
    if (code !== 0 || (JSON.parse(out) as unknown[]).length !== tickets) throw new Error('tik ls failed in the benchmark');
    return [{ name: `tik ls --all --json, ${tickets} tickets × 3 events`, floorMs: floor, ms: ls, note: 'every ticket read, parsed and derived' }];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
