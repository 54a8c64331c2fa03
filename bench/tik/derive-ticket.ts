import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { memoryIo } from '../../src/tik/cli/io.js';
import { runTik } from '../../src/tik/cli/run.js';
import { Instant } from '../../src/tik/edn/value.js';
import { effectiveReached, resolveRoles } from '../../src/tik/kernel/index.js';
import { benchStore, benchTicket, writeTicket } from './fixture.js';
import { interleaved, ratio, readAndHash, type BenchResult } from './measure.js';

/**
 * Derive one ticket of N events (upstream: 8,000 events in 476 ms on its machine), measured
 * side by side with the floor (read and hash the same files), interleaved in one run:
 * - `tik status --json` end to end with its status cache warm (read and hash every event, check
 *   the cache's key, print the kept answer);
 * - the same with the cache deleted before each call (read, hash, parse, resolve the pin, derive,
 *   explain, write the cache);
 * - the same with `TIK_INDEX=off` (the path without the cache: what status did before it);
 * - the kernel derivation alone (parsed events in memory).
 * Never asserts time. Standalone: `npm run build && node dist/bench/tik/derive-ticket.js [--quick]`.
 */
export async function benchDeriveTicket(events = 8000, runs = 5): Promise<BenchResult[]> {
  const root = mkdtempSync(join(tmpdir(), 'tik-bench-derive-'));
  try {
    const def = benchStore(root);
    const ticket = benchTicket(1);
    process.stderr.write(`derive: writing one ticket of ${events} events…\n`);
    const written = writeTicket(root, def, ticket, events);
    const now = new Instant(written[written.length - 1]!.at.ms + 3_600_000);
    const status = (env: Record<string, string> = {}) => async (): Promise<void> => {
      const io = memoryIo({ cwd: root, env: { TIK_ROOT: root, TIK_NOW: '2026-07-09T00:00:00Z', HOME: root, ...env } });
      if ((await runTik(['status', ticket, '--json'], io)) !== 0) throw new Error(`tik status failed in the benchmark: ${io.stderr()}`);
    };
    const cold = status();
    const roles = resolveRoles(def);
    const [floor, cached, uncached, off, kernel] = await interleaved(runs, [
      () => readAndHash(root, [ticket]),
      status(),
      async () => {
        rmSync(join(root, '.tik-index'), { recursive: true, force: true });
        await cold();
      },
      status({ TIK_INDEX: 'off' }),
      () => effectiveReached(def, written, now, roles),
    ]);
    const name = `tik status --json, 1 ticket × ${events} events`;
    return [
      { name, floorMs: floor!, ms: cached!, note: 'status cache warm: read + hash + key check' },
      { name: `${name}, cache deleted`, floorMs: floor!, ms: uncached!, note: 'read + hash + parse + derive + explain + write the cache' },
      { name: `${name}, TIK_INDEX=off`, floorMs: floor!, ms: off!, note: 'without the cache: read + hash + parse + derive + explain' },
      { name: `kernel effectiveReached, ${events} events`, floorMs: floor!, ms: kernel!, note: 'parsed events in memory' },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes('--quick');
  for (const r of await benchDeriveTicket(quick ? 800 : 8000, quick ? 3 : 7)) {
    process.stdout.write(`${r.name}: ${r.ms.toFixed(1)} ms, floor ${r.floorMs.toFixed(1)} ms → ${ratio(r)}× (${r.note})\n`);
  }
}
