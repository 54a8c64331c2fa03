/**
 * CLI start-up (issue 18: "`tik --help` ≤ 1.5× `node -e 0`"). Runs each command as a fresh process
 * and reports its median wall time against `node -e 0`, the two run interleaved (sideBySide) so
 * that the load of a shared machine weighs on both alike. Never asserts
 * time. Standalone: `npm run build && node dist/bench/tik/cli-startup.js [--quick]`; also part of
 * `node dist/bench/run.js`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sideBySide, type BenchResult } from './measure.js';

const tikMain = resolve(fileURLToPath(import.meta.url), '../../../src/tik/cli/main.js');

function run(args: readonly string[], cwd: string): void {
  const r = spawnSync(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, TIK_ACTOR: 'bench' } });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr.toString()}`);
}

export async function benchCliStartup(runs: number): Promise<BenchResult[]> {
  const root = mkdtempSync(join(tmpdir(), 'tik-startup-'));
  try {
    run([tikMain, 'init'], root);
    const rows: Array<[string, string[]]> = [
      ['tik --help', [tikMain, '--help']],
      ['tik ls (empty file store)', [tikMain, 'ls']],
    ];
    const results: BenchResult[] = [];
    for (const [name, args] of rows) {
      const { floorMs, ms } = await sideBySide(runs, () => run(['-e', '0'], root), () => run(args, root));
      results.push({ name, floorMs, ms, note: 'floor: node -e 0 (process start)' });
    }
    return results;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const results = await benchCliStartup(process.argv.includes('--quick') ? 5 : 15);
  for (const r of results) process.stdout.write(`${r.name}: ${r.ms.toFixed(0)} ms = ${(r.ms / r.floorMs).toFixed(2)}× node -e 0 (${r.floorMs.toFixed(0)} ms)\n`);
}
