import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  contentIdOf,
  emit,
  ednEquals,
  ednList,
  ednMap,
  ednSet,
  equalityKey,
  ID_PATTERN,
  readEdn,
  readEdnBytes,
  emitBytes,
  type EdnValue,
} from '../../../src/tik/edn/index.js';
import { TikError } from '../../../src/tik/errors.js';
import { arbEdn } from './arbitrary.js';

const runs = { numRuns: 400 };

describe('canonical EDN laws', () => {
  test('emit ∘ read ∘ emit is a fixpoint', () => {
    fc.assert(
      fc.property(arbEdn, (v) => {
        const text = emit(v);
        expect(emit(readEdn(text))).toBe(text);
        expect(emitBytes(readEdnBytes(emitBytes(v))).equals(emitBytes(v))).toBe(true);
      }),
      runs,
    );
  });

  test('reading the canonical text gives a value = to the original', () => {
    fc.assert(
      fc.property(arbEdn, (v) => {
        expect(ednEquals(readEdn(emit(v)), v)).toBe(true);
      }),
      runs,
    );
  });

  test('key and member insertion order never changes the bytes', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(arbEdn, arbEdn), { selector: ([k]) => equalityKey(k), maxLength: 8 }),
        fc.uniqueArray(arbEdn, { selector: equalityKey, maxLength: 8 }),
        fc.integer(),
        (entries, members, seed) => {
          const shuffled = <T>(xs: readonly T[]): T[] => {
            const out = [...xs];
            let s = seed;
            for (let i = out.length - 1; i > 0; i--) {
              s = (s * 1103515245 + 12345) | 0;
              const j = Math.abs(s) % (i + 1);
              [out[i], out[j]] = [out[j] as T, out[i] as T];
            }
            return out;
          };
          expect(emit(ednMap(shuffled(entries)))).toBe(emit(ednMap(entries)));
          expect(emit(ednMap([...entries].reverse()))).toBe(emit(ednMap(entries)));
          expect(emit(ednSet(shuffled(members)))).toBe(emit(ednSet(members)));
        },
      ),
      runs,
    );
  });

  test('distinct values never share bytes (injectivity), and equal bytes mean equal values', () => {
    fc.assert(
      fc.property(arbEdn, arbEdn, (a, b) => {
        if (!ednEquals(a, b)) expect(emit(a)).not.toBe(emit(b));
        if (emit(a) === emit(b)) expect(ednEquals(a, b)).toBe(true);
      }),
      runs,
    );
  });

  test('injectivity on near neighbours: a value and a one-element change of it', () => {
    fc.assert(
      fc.property(fc.array(arbEdn, { minLength: 1, maxLength: 5 }), arbEdn, fc.nat(), (xs, y, i) => {
        const j = i % xs.length;
        const changed = xs.map((x, k) => (k === j ? y : x));
        const a = Object.freeze(xs) as EdnValue;
        const b = Object.freeze(changed) as EdnValue;
        expect(emit(a) === emit(b)).toBe(emit(xs[j] as EdnValue) === emit(y));
        expect(ednEquals(a, b)).toBe(ednEquals(xs[j] as EdnValue, y));
      }),
      runs,
    );
  });

  test('a vector and a list with equal elements are = but have different bytes', () => {
    fc.assert(
      fc.property(fc.array(arbEdn, { maxLength: 4 }), (xs) => {
        const vec = Object.freeze([...xs]) as EdnValue;
        const list = ednList(xs);
        expect(ednEquals(vec, list)).toBe(true);
        expect(emit(vec)).not.toBe(emit(list));
        expect(ednEquals(ednMap([[vec, 1n]]), ednMap([[list, 1n]]))).toBe(true);
      }),
      runs,
    );
  });

  test('every content id matches ID_PATTERN', () => {
    fc.assert(
      fc.property(arbEdn, (v) => {
        expect(contentIdOf(v)).toMatch(ID_PATTERN);
      }),
      runs,
    );
  });

  test('the reader never throws anything but TikError edn/malformed on arbitrary text', () => {
    const check = (text: string): void => {
      try {
        const v = readEdn(text, 'fuzz');
        // whatever it accepts must be canonically writable
        emit(v);
      } catch (e) {
        expect(e).toBeInstanceOf(TikError);
        expect((e as TikError).code).toBe('edn/malformed');
        expect((e as TikError).position).toBeDefined();
      }
    };
    const ednish = fc.string({
      unit: fc.constantFrom(...'()[]{}#_";\\:/ ,\n\tabcnilu0123456789+-.NMe/^#inst#uuid"'.split(''), '#inst ', '#uuid ', '\\u', '\uD800'),
      maxLength: 40,
    });
    fc.assert(fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), ednish), check), { numRuns: 2000 });
  });

  test('the reader never throws anything but TikError on mutations of canonical text', () => {
    fc.assert(
      fc.property(arbEdn, fc.nat(), fc.nat({ max: 3 }), fc.string({ maxLength: 2 }), (v, at, del, ins) => {
        const text = emit(v);
        const i = text.length === 0 ? 0 : at % text.length;
        const mutated = text.slice(0, i) + ins + text.slice(i + del);
        try {
          emit(readEdn(mutated));
        } catch (e) {
          expect(e).toBeInstanceOf(TikError);
          expect((e as TikError).code).toBe('edn/malformed');
        }
      }),
      { numRuns: 2000 },
    );
  });

  test('readEdnBytes never throws anything but TikError on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 30 }), (bytes) => {
        try {
          readEdnBytes(bytes);
        } catch (e) {
          expect(e).toBeInstanceOf(TikError);
          expect((e as TikError).code).toBe('edn/malformed');
        }
      }),
      { numRuns: 2000 },
    );
  });
});
