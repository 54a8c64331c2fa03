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
 * Wait (at most `maxMs`) until this process is quiet: under 5% of a core used over a 500 ms
 * window. After an instance starts and plans its first query, V8 keeps compiling the SQL
 * library's WebAssembly and hot JavaScript in background threads for several seconds (about
 * 3 s of CPU per isolate, measured with perf on the 2-core bench host); a side measured during
 * that competes with it for the cores, and the other side, measured later, does not.
 */
export async function settle(maxMs = 30_000): Promise<void> {
  const end = performance.now() + maxMs;
  while (performance.now() < end) {
    const before = process.cpuUsage();
    const t = performance.now();
    await new Promise((r) => setTimeout(r, 500));
    const used = process.cpuUsage(before);
    if ((used.user + used.system) / 1000 < 0.05 * (performance.now() - t)) return;
  }
}

/** Medians (ms) of a floor and a subject measured side by side. */
export interface SideBySide {
  readonly floorMs: number;
  readonly ms: number;
}

/**
 * Median wall times of `floor` and `subject`, measured interleaved: one warm-up call each, then
 * `runs` rounds that run both, the order alternating (floor first, then subject first), so a
 * machine whose load changes during the run slows both sides alike. Measuring all of one side
 * and then all of the other turns a load change into a ratio.
 */
export async function sideBySide(runs: number, floor: () => unknown, subject: () => unknown): Promise<SideBySide> {
  const [floorMs, ms] = await interleaved(runs, [floor, subject]);
  return { floorMs: floorMs!, ms: ms! };
}

/**
 * `sideBySide` for any number of sides: one warm-up call each, then `runs` rounds that run every
 * side once, each round starting one side later; the median of each side, in order.
 */
export async function interleaved(runs: number, sides: readonly (() => unknown)[]): Promise<number[]> {
  for (const f of sides) await f();
  const times: number[][] = sides.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (let k = 0; k < sides.length; k++) {
      const j = (i + k) % sides.length;
      const t = performance.now();
      await sides[j]!();
      times[j]!.push(performance.now() - t);
    }
  }
  return times.map((xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);
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
