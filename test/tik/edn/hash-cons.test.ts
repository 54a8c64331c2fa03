import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { emit, readEdn, type EdnValue } from '../../../src/tik/edn/index.js';
import { narrowDigests } from '../../../src/tik/edn/structure.js';
import { EdnList, EdnMap, EdnSet } from '../../../src/tik/edn/value.js';
import { arbEdn } from './arbitrary.js';
import { listsToVectors, naiveEmit, naiveHasDuplicate } from './naive.js';

// Issue 13: canonical order and duplicate detection must be exact, not "right unless two digests
// collide" (admission compares re-emitted bytes, so a wrong order refuses a valid event or admits a
// non-canonical one). Here every structural digest collides (0 bits kept): a digest may only
// propose a candidate, so order and duplicates must still come out as the naive references say.
// Before the reader hash-consed, the comparator skipped aligned sub-collections whose digests
// agreed, and `[[1] 2]` sorted before `[[0] 3]`.

const isColl = (v: EdnValue): boolean => Array.isArray(v) || v instanceof EdnList || v instanceof EdnMap || v instanceof EdnSet;

describe('every digest collides: order and duplicates stay exact', () => {
  beforeAll(() => narrowDigests(0));
  afterAll(() => narrowDigests(53));

  test('sub-collections with equal digests but different text are not skipped', () => {
    expect(emit(readEdn('#{[[1] 2] [[0] 3]}'))).toBe('#{[[0] 3] [[1] 2]}');
    expect(emit(readEdn('{#{[:b] 1} x #{[:a] 2} y}'))).toBe('{#{1 [:b]} x #{2 [:a]} y}');
    expect(emit(readEdn('#{{:k [2]} {:k [1]} {:k (3)}}'))).toBe('#{{:k (3)} {:k [1]} {:k [2]}}');
  });

  test('colliding collections that differ are members side by side; equal ones are duplicates', () => {
    expect(emit(readEdn('#{[1] [2] (3) #{1} {1 2} {2 1}}'))).toBe('#{#{1} (3) [1] [2] {1 2} {2 1}}');
    expect(() => readEdn('#{[1] [2] (1)}')).toThrow(/duplicate set member/);
    expect(() => readEdn('#{{:k [1]} {:k (1)}}')).toThrow(/duplicate set member/);
    expect(() => readEdn('#{#{[1] 2} #{2 (1)}}')).toThrow(/duplicate set member/);
    expect(() => readEdn('{{[1] (2)} 1 {(1) [2]} 2}')).toThrow(/duplicate map key/);
    expect(() => readEdn('{{[1] (2)} 1 {(1) [3]} 2}')).not.toThrow();
  });

  test('sets of arbitrary collections order as the naive writer does, and find exactly its duplicates', () => {
    fc.assert(
      fc.property(fc.array(arbEdn.filter(isColl), { minLength: 1, maxLength: 6 }), fc.nat(), (xs, n) => {
        const members = n % 3 === 0 ? [...xs, listsToVectors(xs[n % xs.length]!)] : xs;
        const literal = '#{' + members.map((x) => emit(x)).join(' ') + '}';
        if (naiveHasDuplicate(members)) {
          expect(() => readEdn(literal)).toThrow(/duplicate set member/);
          return;
        }
        const v = readEdn(literal);
        expect(emit(v) === naiveEmit(v)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('hash-consing is per read', () => {
  test('equal collections of one read are one object, wherever they sit', () => {
    const v = readEdn('[[1 #{:a}] [1 #{:a}] #{[1 #{:a}]} {[1 #{:a}] 2}]') as readonly EdnValue[];
    const set = v[2] as EdnSet;
    const map = v[3] as EdnMap;
    expect(v[0]).toBe(v[1]);
    expect([...set.values()][0]).toBe(v[0]);
    expect([...map.entries()][0]![0]).toBe(v[0]);
  });

  test('a list and a vector with equal elements stay two objects (different text)', () => {
    const v = readEdn('[[1] (1)]') as readonly EdnValue[];
    expect(v[0]).not.toBe(v[1]);
    expect(emit(v)).toBe('[[1] (1)]');
  });

  test('nothing is shared across reads', () => {
    expect(readEdn('[1 [2]]')).not.toBe(readEdn('[1 [2]]'));
  });
});
