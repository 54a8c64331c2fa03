/**
 * The EDN reader's growth (issue 13: "a reader linear in its input"). For each input shape, reads
 * (and re-emits, as admission does: re-emit and compare) texts of 1, 2, 4 and 8 MiB and reports
 * the time ratio per doubling of the input: about 2 is linear, about 4 quadratic. The floor of each
 * row is the 1 MiB size of the same shape. Never asserts time. Standalone:
 * `npm run build && node dist/bench/tik/edn-read.js [--quick]`; also part of `node dist/bench/run.js`.
 */
import { pathToFileURL } from 'node:url';
import { emit, readEdn } from '../../src/tik/edn/index.js';
import { TikError } from '../../src/tik/errors.js';
import { median, type BenchResult } from './measure.js';

const MIB = 1 << 20;

/** A text of about `bytes` characters in one shape. */
type Shape = (bytes: number) => string;

const tower = (open: string, close: string, depth: number, leaf: string): string => open.repeat(depth) + leaf + close.repeat(depth);
/** `count` copies of a small tower, in a vector. */
const towers = (bytes: number, one: (i: number) => string): string => {
  const parts: string[] = [];
  let n = 2;
  for (let i = 0; n < bytes; i++) {
    const t = one(i);
    parts.push(t);
    n += t.length + 1;
  }
  return '[' + parts.join(' ') + ']';
};

/** Distinct quoted strings of 20,000 characters, differing only at the end, about `bytes` in all. */
const longStrings = (bytes: number): string[] =>
  Array.from({ length: Math.max(1, Math.floor(bytes / 20_003)) }, (_, i) => `"${'L'.repeat(20_000 - 8)}${String(i).padStart(8, '0')}"`);

/** The shapes measured: each grows by its payload or by repetition, never past depth 500. */
export const SHAPES: Readonly<Record<string, Shape>> = {
  // the reported shape: 500 nested one-member sets around one large string
  'nested sets (500 deep, one large leaf)': (b) => tower('#{', '}', 500, `"${'x'.repeat(b - 1002)}"`),
  // many towers of sets with two members per level (every member's text is a set key)
  'nested sets (towers, 2 members/level)': (b) => towers(b, (i) => tower('#{:a ', '}', 20, `"s${i}"`)),
  'nested maps (500 deep, one large leaf)': (b) => tower('{:k ', '}', 500, `"${'y'.repeat(b - 2502)}"`),
  'nested maps (towers, 2 entries/level)': (b) => towers(b, (i) => tower('{:a 1 :b ', '}', 20, `"m${i}"`)),
  'nested maps (towers, map keys)': (b) => towers(b, (i) => tower('{:z 1 ', ' 2}', 10, `"k${i}"`)),
  'nested vectors (500 deep, one large leaf)': (b) => tower('[', ']', 500, `"${'z'.repeat(b - 1002)}"`),
  'nested vectors (towers)': (b) => towers(b, (i) => tower('[1 ', ']', 50, String(i))),
  'long string (escapes every 64 chars)': (b) => `"${('a'.repeat(62) + '\\n').repeat(Math.floor(b / 64))}"`,
  'many distinct keywords': (b) => towers(b, (i) => `:k${i % 7}/n${i}`),
  'wide set (distinct strings)': (b) => '#{' + Array.from({ length: Math.floor(b / 10) }, (_, i) => `"s${i}"`).join(' ') + '}',
  'wide map (distinct keyword keys)': (b) => '{' + Array.from({ length: Math.floor(b / 14) }, (_, i) => `:k${i} ${i}`).join(' ') + '}',
  // V8 hashes a string of more than 16,383 characters by its length alone: many such strings of one
  // length in one JS table share a bucket (the reader keys long texts by digest instead)
  'wide set (long strings of one length)': (b) => '#{' + longStrings(b).join(' ') + '}',
  'wide map (long string keys of one length)': (b) => '{' + longStrings(b).map((s, i) => `${s} ${i}`).join(' ') + '}',
};

export interface EdnReadReport {
  readonly results: BenchResult[];
  readonly lines: string[];
}

/** Read + re-emit of each shape at each size; a shape the reader refuses says so (with its time). */
export async function benchEdnRead(sizesMib: readonly number[], runs: number, progress: (line: string) => void = () => {}, only?: string): Promise<EdnReadReport> {
  const results: BenchResult[] = [];
  const lines: string[] = ['edn-read: ms at ' + sizesMib.map((s) => `${s} MiB`).join(' / ') + '; ratio per doubling (≈2 linear, ≈4 quadratic)'];
  for (const [name, shape] of Object.entries(SHAPES)) {
    if (only !== undefined && !name.includes(only)) continue;
    const times: number[] = [];
    let refused: string | undefined;
    for (const s of sizesMib) {
      const text = shape(s * MIB);
      const ms = await median(runs, () => {
        try {
          const v = readEdn(text);
          if (emit(v).length === 0) throw new Error('empty emission');
        } catch (e) {
          if (!(e instanceof TikError)) throw e;
          refused ??= `${e.code} at ${s} MiB`;
        }
      });
      times.push(ms);
    }
    const ratios = times.slice(1).map((t, i) => t / times[i]!);
    const worst = Math.max(...ratios);
    const line = `  ${name.padEnd(44)} ${times.map((t) => t.toFixed(1).padStart(8)).join(' ')} ms   ×${ratios.map((r) => r.toFixed(2)).join(' ×')}${refused ? `   (refused: ${refused})` : ''}`;
    lines.push(line);
    progress(line);
    results.push({ name: `edn read ${name}`, ms: times[times.length - 1]!, floorMs: times[0]!, note: `${sizesMib[sizesMib.length - 1]} MiB vs ${sizesMib[0]} MiB; worst doubling ×${worst.toFixed(2)}${refused ? `; refused ${refused}` : ''}` });
  }
  return { results, lines };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const quick = process.argv.includes('--quick');
  const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7);
  const sizes = quick ? [0.25, 0.5, 1, 2] : [1, 2, 4, 8];
  process.stdout.write(`edn-read: ms at ${sizes.map((s) => `${s} MiB`).join(' / ')}; ratio per doubling (≈2 linear, ≈4 quadratic)\n`);
  await benchEdnRead(sizes, quick ? 3 : 2, (line) => process.stdout.write(line + '\n'), only);
}
