import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { emit, ednEquals, ednList, ednMap, ednSet, readEdn, type EdnValue } from '../../../src/tik/edn/index.js';
import { compareCanonical, equalityDigest } from '../../../src/tik/edn/structure.js';
import { EdnList, EdnMap, EdnSet, Keyword } from '../../../src/tik/edn/value.js';
import { arbEdn } from './arbitrary.js';

// The structural comparator must order values exactly as Java `String.compareTo` orders their
// canonical texts, including where one text runs into the separator or closing bracket of the
// other, and the equality digest must agree with Clojure `=`.

const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);
const textOrder = (a: EdnValue, b: EdnValue): number => {
  const x = emit(a);
  const y = emit(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** A value a small step away from `v` (a longer token, one more element, a list for a vector). */
function nudge(v: EdnValue, n: number): EdnValue {
  if (v instanceof Keyword) return Keyword.of(v.text + (n % 2 === 0 ? 'a' : '/b'));
  if (typeof v === 'bigint') return v > -(10n ** 17n) && v < 10n ** 17n ? v * 10n + BigInt(n % 10) : v / 10n;
  if (Array.isArray(v)) {
    const xs = v as readonly EdnValue[];
    if (xs.length === 0 || n % 3 === 0) return Object.freeze([...xs, BigInt(n)]);
    if (n % 3 === 1) return ednList(xs);
    return Object.freeze([...xs.slice(0, -1), nudge(xs[xs.length - 1]!, n >> 2)]);
  }
  if (v instanceof EdnList) return ednList([...v.items, null]);
  if (v instanceof EdnSet) return ednSet([...v.values()].map((x, i) => (i === 0 ? nudge(x, n) : x)));
  if (v instanceof EdnMap) return ednMap([...v.entries()].map(([k, x], i) => (i === 0 ? ([k, nudge(x, n)] as const) : ([k, x] as const))));
  return [v];
}

describe('structural canonical order', () => {
  test('boundary cases order as their texts do', () => {
    const pairs = ['[1 2]', '[1]', '[:a 1]', '[:ab]', '#{[1]}', '#{[1 2]}', '{:a 1}', '{:a 12}', '[]', '[1]', '(1)', '#{}', '#inst "2026-01-01T00:00:00Z"', '#uuid "018f2f6e-7c1a-7000-8000-000000000000"', '[[1] 2]', '[[1 2]]', '{[1] 1}', '{[1 2] 1}', '[a b]', '[a/b]', '[nil]', '[nilly]'];
    for (const a of pairs) for (const b of pairs) expect([a, b, sign(compareCanonical(readEdn(a), readEdn(b)))]).toEqual([a, b, textOrder(readEdn(a), readEdn(b))]);
  });

  test('comparator agrees with text order on any pair, and on a value and its near neighbour', () => {
    fc.assert(
      fc.property(arbEdn, arbEdn, fc.nat(), (a, b, n) => {
        expect(sign(compareCanonical(a, b))).toBe(textOrder(a, b));
        const c = nudge(a, n);
        expect(sign(compareCanonical(a, c))).toBe(textOrder(a, c));
        expect(sign(compareCanonical(ednSet([a, b]), ednSet([c, b])))).toBe(textOrder(ednSet([a, b]), ednSet([c, b])));
      }),
      { numRuns: 400 },
    );
  });

  test('equality digests agree exactly when values are = (a list equals its vector twin)', () => {
    fc.assert(
      fc.property(arbEdn, fc.nat(), (a, n) => {
        const c = nudge(a, n);
        expect(equalityDigest(a) === equalityDigest(c)).toBe(ednEquals(a, c));
      }),
      { numRuns: 400 },
    );
  });
});
