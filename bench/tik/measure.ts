import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

/** Median wall time (ms) of `runs` calls, after one warm-up call. */
export async function median(runs: number, f: () => unknown): Promise<number> {
  await f();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await f();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/**
 * The floor: just read and hash every event file of the given tickets (what any implementation
 * must do before it can trust a byte).
 */
export function readAndHash(root: string, tickets: readonly string[]): number {
  let n = 0;
  for (const t of tickets) {
    const dir = join(root, 'tickets', t, 'events');
    for (const f of readdirSync(dir)) {
      if (!f.endsWith('.edn')) continue;
      const bytes = readFileSync(join(dir, f));
      if (`sha256-${createHash('sha256').update(bytes).digest('hex')}.edn` !== f) throw new Error(`${f} does not hash to its name`);
      n++;
    }
  }
  return n;
}

/** One benchmark's result line. */
export interface BenchResult {
  readonly name: string;
  readonly floorMs: number;
  readonly ms: number;
  readonly note: string;
}

export const ratio = (r: BenchResult): string => (r.ms / r.floorMs).toFixed(1);
