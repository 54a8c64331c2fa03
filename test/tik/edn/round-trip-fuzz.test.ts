import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { emit, ednEquals, ednList, ednMap, ednSet, readEdn, type EdnValue } from '../../../src/tik/edn/index.js';
import { EdnList, EdnMap, EdnSet, Uuid } from '../../../src/tik/edn/value.js';
import { arbEdn } from './arbitrary.js';
import { listsToVectors, naiveEmit, naiveHasDuplicate } from './naive.js';

// Issue 13: the reader and the canonical writer round-trip on the shapes the linearity work
// touched — deep towers of sets, maps (as keys and as values), vectors and lists, up to the
// nesting limit — and on any non-canonical spelling of a value (whitespace, commas, comments,
// `#_` discards, entry and member order, `+` signs, upper-case uuids, `\u` escapes): reading
// it gives the value whose canonical text is the writer's, and that text reads back to itself.

type Wrap = 'set' | 'map-key' | 'map-value' | 'vector' | 'list';
const arbWrap = fc.constantFrom<Wrap>('set', 'map-key', 'map-value', 'vector', 'list');

/** A tower: `levels` wrappers around a leaf, each level with a sibling value beside the inner one. */
const arbTower: fc.Arbitrary<EdnValue> = fc
  .tuple(arbEdn, fc.array(fc.tuple(arbWrap, fc.option(arbEdn, { nil: undefined })), { minLength: 1, maxLength: 120 }))
  .map(([leaf, levels]) => {
    let v = leaf;
    for (const [w, sibling] of levels) {
      const beside = sibling === undefined ? [] : [sibling];
      if (w === 'set') v = ednSet([v, ...beside]);
      else if (w === 'map-key') v = ednMap([[v, sibling ?? null], ...(sibling === undefined ? [] : ([[sibling, v]] as const))]);
      else if (w === 'map-value') v = ednMap([[sibling ?? null, v]]);
      else if (w === 'vector') v = Object.freeze([v, ...beside]);
      else v = ednList([...beside, v]);
    }
    return v;
  });

/** A small deterministic generator, so a failing case replays from its fast-check seed. */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

const SEPARATORS = [' ', ',', '\n', '\t', ' ;; a comment\n', ' #_ :dropped ', ' #_[1 #{2}] ', ',\r\n '];

/** Prints `v` in a valid but non-canonical spelling chosen by `rnd`. */
function noisy(v: EdnValue, rnd: () => number): string {
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const sep = (): string => pick(SEPARATORS);
  const shuffle = <T,>(xs: T[]): T[] => {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [xs[i], xs[j]] = [xs[j]!, xs[i]!];
    }
    return xs;
  };
  const seq = (open: string, close: string, items: readonly string[]): string => open + (rnd() < 0.5 ? sep() : '') + items.join(sep() + (rnd() < 0.3 ? sep() : '')) + (rnd() < 0.5 ? sep() : '') + close;
  if (typeof v === 'bigint') return v >= 0n && rnd() < 0.3 ? `+${v}` : v.toString();
  if (typeof v === 'string') {
    const c = v.charCodeAt(0);
    // a \u escape for an ordinary first character (never a surrogate, never one with a short escape)
    if (v.length > 0 && rnd() < 0.3 && c >= 0x20 && c !== 0x22 && c !== 0x5c && (c < 0xd800 || c > 0xdfff)) return `"\\u${c.toString(16).padStart(4, '0')}${emit(v).slice(2)}`;
    return emit(v);
  }
  if (v instanceof Uuid) return rnd() < 0.5 ? `#uuid "${v.text.toUpperCase()}"` : emit(v);
  if (Array.isArray(v)) return seq('[', ']', (v as readonly EdnValue[]).map((x) => noisy(x, rnd)));
  if (v instanceof EdnList) return seq('(', ')', v.items.map((x) => noisy(x, rnd)));
  if (v instanceof EdnSet) return seq('#{', '}', shuffle([...v.values()].map((x) => noisy(x, rnd))));
  if (v instanceof EdnMap) return seq('{', '}', shuffle([...v.entries()].map(([k, x]) => noisy(k, rnd) + sep() + noisy(x, rnd))));
  return emit(v);
}

const runs = { numRuns: 300 };

describe('reader and canonical writer round-trip (fuzz)', () => {
  test('deep towers of sets, maps, vectors and lists: emit(read(emit(v))) = emit(v), and the value is equal', () => {
    fc.assert(
      fc.property(arbTower, (v) => {
        const text = emit(v);
        const back = readEdn(text);
        expect(emit(back) === text).toBe(true);
        expect(ednEquals(back, v)).toBe(true);
      }),
      runs,
    );
  });

  test('any non-canonical spelling reads to the value the canonical text names', () => {
    fc.assert(
      fc.property(fc.oneof(arbEdn, arbTower), fc.integer(), (v, seed) => {
        const spelled = noisy(v, lcg(seed));
        const text = emit(v);
        expect(emit(readEdn(spelled)) === text).toBe(true);
        expect(emit(readEdn(text)) === text).toBe(true);
      }),
      runs,
    );
  });

  test('towers at the nesting limit round-trip, one level more is refused by both reader and writer', () => {
    fc.assert(
      fc.property(fc.array(arbWrap, { minLength: 512, maxLength: 512 }), (wraps) => {
        let v: EdnValue = 'leaf';
        for (const w of wraps) v = w === 'set' ? ednSet([v]) : w === 'map-key' ? ednMap([[v, 1n]]) : w === 'map-value' ? ednMap([[1n, v]]) : w === 'vector' ? Object.freeze([v]) : ednList([v]);
        const text = emit(v);
        expect(emit(readEdn(text)) === text).toBe(true);
        expect(() => emit(Object.freeze([v]))).toThrow(/nested more than 512 deep/);
        expect(() => readEdn(`[${text}]`)).toThrow(/nested more than 512 deep/);
      }),
      { numRuns: 20 },
    );
  });

  // Collections as set members and map keys: the reader identifies them by structural digest and
  // the writer orders them with a structural comparator; both are checked against naive references
  // that write every member's whole text (string sort; pairwise `=` by equality text).

  const isColl = (v: EdnValue): boolean => Array.isArray(v) || v instanceof EdnList || v instanceof EdnMap || v instanceof EdnSet;
  const arbColl = fc.oneof(arbEdn.filter(isColl), arbTower.filter(isColl));
  /** Collection members, some of them `=` twins of others (or exact copies). */
  const arbMembers = fc
    .tuple(fc.array(arbColl, { minLength: 1, maxLength: 6 }), fc.array(fc.tuple(fc.nat(), fc.boolean()), { maxLength: 2 }))
    .map(([xs, twins]) => [...xs, ...twins.map(([i, deep]) => (deep ? listsToVectors(xs[i % xs.length]!) : xs[i % xs.length]!))]);

  test('sets of collections: read(emit(v)) = v, emit matches the naive writer, duplicates found exactly when the naive check finds one', () => {
    fc.assert(
      fc.property(arbMembers, fc.integer(), (xs, seed) => {
        const literal = '#{' + xs.map((x) => noisy(x, lcg(seed))).join(' ') + '}';
        if (naiveHasDuplicate(xs)) {
          expect(() => readEdn(literal)).toThrow(/duplicate set member/);
          return;
        }
        const v = readEdn(literal);
        const text = emit(v);
        expect(text === naiveEmit(v)).toBe(true);
        expect(emit(readEdn(text)) === text).toBe(true);
        expect(ednEquals(readEdn(text), v)).toBe(true);
      }),
      runs,
    );
  });

  test('maps keyed by collections: read(emit(v)) = v, emit matches the naive writer, duplicate keys found exactly when the naive check finds one', () => {
    fc.assert(
      fc.property(arbMembers, fc.array(arbEdn, { minLength: 8, maxLength: 8 }), fc.integer(), (keys, vals, seed) => {
        const literal = '{' + keys.map((k, i) => `${noisy(k, lcg(seed + i))} ${noisy(vals[i % vals.length]!, lcg(seed))}`).join(' ') + '}';
        if (naiveHasDuplicate(keys)) {
          expect(() => readEdn(literal)).toThrow(/duplicate map key/);
          return;
        }
        const v = readEdn(literal);
        const text = emit(v);
        expect(text === naiveEmit(v)).toBe(true);
        expect(emit(readEdn(text)) === text).toBe(true);
        // a set holding this map and its list-free twin: one member under `=`
        expect(() => readEdn(`#{${text} ${emit(listsToVectors(v))}}`)).toThrow(/duplicate set member/);
      }),
      runs,
    );
  });
});
