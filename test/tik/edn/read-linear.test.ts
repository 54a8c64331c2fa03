import { describe, expect, it } from 'vitest';
import { emit, readEdn } from '../../../src/tik/edn/index.js';
import { structureWork } from '../../../src/tik/edn/structure.js';
import { admitEventBytes } from '../../../src/tik/store/admission/index.js';
import { sha256Id } from '../../../src/tik/store/store-names.js';
import { V8_FULL_HASH, withBucketProbes } from './bucket-probes.js';

// Issue 13: a valid 15 MiB event of 509 nested sets took 49 s to read (each level re-emitted
// everything below it). The reader now computes each element's text at most once, and a
// one-member set or one-entry map needs none at all: the input below reads (and re-emits, as
// admission does) well within the test timeout, where it took most of a minute before.

const DEPTH = 509;
const PAYLOAD = 15 << 20;

function nestedSets(depth: number, payload: string): string {
  return '#{'.repeat(depth) + payload + '}'.repeat(depth);
}

describe('the reader is linear in its input', () => {
  it('509 nested one-member sets around a 15 MiB string read and re-emit at once', () => {
    const text = nestedSets(DEPTH, `"${'x'.repeat(PAYLOAD)}"`);
    const v = readEdn(text);
    expect(emit(v) === text).toBe(true);
  }, 20_000);

  it('a 15 MiB event whose body nests 500 one-entry maps is admitted at once', () => {
    const inner = '{:k '.repeat(500) + `"${'y'.repeat(PAYLOAD)}"` + '}'.repeat(500);
    const text = `{:event/actor "m" :event/at #inst "2026-07-08T10:00:00Z" :event/body {:note/nested ${inner} :ticket/process :p :ticket/title "t"} :event/parents #{} :event/ticket #uuid "018f2f6e-7c1a-7000-8000-00000000beef" :event/type :ticket/create}`;
    const bytes = Buffer.from(text, 'utf8');
    expect(admitEventBytes('018f2f6e-7c1a-7000-8000-00000000beef', sha256Id(bytes), bytes).type.text).toBe('ticket/create');
  }, 20_000);

  it('sets that carry a large nested member through every level read (no budget refuses them)', () => {
    // each level is #{:a <the level below>}: the member below is a key at every level. This was
    // refused (a budget on materialised key text) before members were identified by digest.
    const text = '#{:a '.repeat(400) + `"${'z'.repeat(1 << 20)}"` + '}'.repeat(400);
    const v = readEdn(text);
    expect(emit(v).length).toBe(text.length);
  }, 20_000);

  it('nesting with several members per level still reads, and duplicates inside are still found', () => {
    const once = emit(readEdn('#{:a '.repeat(50) + '"leaf"' + '}'.repeat(50)));
    expect(once.startsWith('#{#{')).toBe(true); // canonical order: the nested set sorts before :a
    expect(emit(readEdn(once))).toBe(once);
    expect(() => readEdn('#{#{:a [1]} #{:a (1)}}')).toThrow(/duplicate set member/);
    expect(() => readEdn('{#{(1)} 1 #{[1]} 2}')).toThrow(/duplicate map key/);
  });
});

// Linear growth checked by counting work (comparison steps and hashed words), not by timing: the
// count for an input twice as large must stay within a constant factor of twice the count.

/** #{:a #{:a … leaf}} : a set member that is a set, `depth` levels, siblings at every level. */
const setTower = (depth: number, leaf: string): string => '#{:a '.repeat(depth) + leaf + '}'.repeat(depth);
/** #{{#{…} 1 …} {:k 2} …} : sets whose members are maps keyed by collections, nested (two levels per step). */
function keyTower(depth: number, leaf: string): string {
  let t = leaf;
  for (let i = 0; i < depth / 2; i++) t = `#{{${t} 1 [${i} (x)] 2} {#{:k ${i}} 3}}`;
  return t;
}
/** Two near-identical towers side by side in a set (canonical order must look past shared structure). */
const twinTowers = (depth: number, leaf: string): string => `#{${setTower(depth, leaf.slice(0, -1) + '1"')} ${setTower(depth, leaf.slice(0, -1) + '2"')} [${setTower(depth, leaf)}]}`;

function workOf(text: string): number {
  structureWork.compareSteps = 0;
  structureWork.hashedWords = 0;
  const v = readEdn(text);
  expect(emit(v).length).toBe(text.length); // the inputs are canonical but for member order
  return structureWork.compareSteps + structureWork.hashedWords;
}

describe('reading nested sets and collection keys does work linear in the input', () => {
  const shapes: Record<string, (depth: number, leaf: string) => string> = {
    'sets of sets': setTower,
    'sets of maps with collection keys': keyTower,
    'twin towers in one set': twinTowers,
  };
  for (const [name, shape] of Object.entries(shapes)) {
    it(`${name}: work per input character stays bounded as depth and leaf double`, () => {
      const perChar: number[] = [];
      for (const [depth, leaf] of [[60, 1 << 12], [120, 1 << 13], [240, 1 << 14], [480, 1 << 15]] as const) {
        const text = shape(depth, `"${'q'.repeat(leaf)}"`);
        perChar.push(workOf(text) / text.length);
      }
      // quadratic work would double per doubling; linear stays flat (a little slack for log factors)
      for (let i = 1; i < perChar.length; i++) expect(perChar[i]!).toBeLessThan(perChar[0]! * 1.5 + 0.5);
      expect(perChar[perChar.length - 1]!).toBeLessThan(4);
    }, 30_000);
  }
});

// V8 hashes a string longer than 16,383 UTF-16 units by its length alone: every such key of one
// length in one Map or Set shares a bucket, and each operation compares the key with all of them
// (1,000 distinct strings of 20k characters took 6 s to read). JS cannot see that work, so the
// tests below count it from outside: while a read runs, each Map or Set operation on a string key
// that long adds (keys of its length already in that table) × (its length), the characters the
// comparisons may read. Tables keyed by long texts through their digest do none of it.

/** `n` distinct texts of `length` characters that differ only in their last ones, in canonical order. */
const longTexts = (n: number, length: number): string[] => Array.from({ length: n }, (_, i) => 'L'.repeat(length - 6) + String(i).padStart(6, '0'));
const quoted = (ts: string[]): string[] => ts.map((t) => `"${t}"`);

describe('many distinct long texts of one length read with work linear in the input', () => {
  const LENGTH = V8_FULL_HASH + 17;
  const shapes: Record<string, { text: (n: number) => string; refused?: RegExp }> = {
    'set of long strings': { text: (n) => `#{${quoted(longTexts(n, LENGTH)).join(' ')}}` },
    'map keyed by long strings': { text: (n) => `{${quoted(longTexts(n, LENGTH)).map((k, i) => `${k} ${i}`).join(' ')}}` },
    'set of long keywords': { text: (n) => `#{${longTexts(n, LENGTH).map((t) => ':' + t).join(' ')}}` },
    'map keyed by long symbols, inside a vector of maps': { text: (n) => `[{:a 1} {${longTexts(n, LENGTH).map((t, i) => `${t} ${i}`).join(' ')}} {:b 2}]` },
    'sets of long strings nested in a map of sets': {
      text: (n) => `{:a #{${quoted(longTexts(n, LENGTH)).slice(0, n / 2).join(' ')}} :b #{#{${quoted(longTexts(n, LENGTH)).slice(n / 2).join(' ')}}}}`,
    },
    // a vector and a list holding one set are `=`: telling them apart compares the two sets' members
    'a set whose two members are = and hold long strings (refused)': {
      text: (n) => { const s = `#{${quoted(longTexts(n, LENGTH)).join(' ')}}`; return `#{(${s}) [${s}]}`; },
      refused: /duplicate set member/,
    },
  };
  for (const [name, { text, refused }] of Object.entries(shapes)) {
    it(`${name}: work per input character stays bounded as the count doubles`, () => {
      const perChar: number[] = [];
      for (const n of [16, 32, 64, 128]) {
        const t = text(n);
        structureWork.compareSteps = 0;
        structureWork.hashedWords = 0;
        const { value, probes } = withBucketProbes(() => readEdn(t));
        if (refused) expect(value).toBeInstanceOf(Error);
        if (refused) expect((value as Error).message).toMatch(refused);
        else expect(emit(value as ReturnType<typeof readEdn>) === t).toBe(true);
        perChar.push((probes + structureWork.compareSteps + structureWork.hashedWords) / t.length);
      }
      for (let i = 1; i < perChar.length; i++) expect(perChar[i]!).toBeLessThan(perChar[0]! * 1.5 + 0.5);
      expect(perChar[perChar.length - 1]!).toBeLessThan(4);
    }, 30_000);
  }
});
