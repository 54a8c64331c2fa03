import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../src/tik/cli/io.js';
import { runTik } from '../../src/tik/cli/run.js';
import { Instant } from '../../src/tik/edn/value.js';
import { effectiveReached, resolveRoles } from '../../src/tik/kernel/index.js';
import { benchStore, benchTicket, writeTicket } from './fixture.js';
import { median, readAndHash, type BenchResult } from './measure.js';

/**
 * Derive one ticket of N events (upstream: 8,000 events in 476 ms on its machine), measured
 * side by side with the floor (read and hash the same files): `tik status --json` end to end
 * (read, hash check, parse, resolve the pin, derive, explain), and the kernel derivation alone.
 */
export async function benchDeriveTicket(events = 8000, runs = 5): Promise<BenchResult[]> {
  const root = mkdtempSync(join(tmpdir(), 'tik-bench-derive-'));
  try {
    const def = benchStore(root);
    const ticket = benchTicket(1);
    process.stderr.write(`derive: writing one ticket of ${events} events…\n`);
    const written = writeTicket(root, def, ticket, events);
    const now = new Instant(written[written.length - 1]!.at.ms + 3_600_000);
    const io = () => memoryIo({ cwd: root, env: { TIK_ROOT: root, TIK_NOW: '2026-07-09T00:00:00Z', HOME: root } });
    let code = 0;
    const floor = await median(runs, () => readAndHash(root, [ticket]));
    const status = await median(runs, async () => {
      code = await runTik(['status', ticket, '--json'], io());
    });
    if (code !== 0) throw new Error('tik status failed in the benchmark');
    const roles = resolveRoles(def);
    const kernel = await median(runs, () => effectiveReached(def, written, now, roles));
    return [
      { name: `tik status --json, 1 ticket × ${events} events`, floorMs: floor, ms: status, note: 'read + hash + parse + derive + explain' },
      { name: `kernel effectiveReached, ${events} events`, floorMs: floor, ms: kernel, note: 'parsed events in memory' },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
