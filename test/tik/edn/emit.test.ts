import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { arbEdn } from './arbitrary.js';
import {
  emit,
  emitBytes,
  ednGet,
  ednGetIn,
  ednList,
  ednMap,
  ednSet,
  ednEquals,
  EdnMap,
  EdnSet,
  Instant,
  kw,
  prStr,
  readEdn,
  Uuid,
  type EdnValue,
} from '../../../src/tik/edn/index.js';
import { TikError } from '../../../src/tik/errors.js';

function failure(v: unknown): TikError {
  try {
    emit(v as EdnValue);
  } catch (e) {
    expect(e).toBeInstanceOf(TikError);
    return e as TikError;
  }
  throw new Error('expected emit to refuse the value');
}

describe('emit refuses what canonical EDN cannot hold', () => {
  test.each([
    ['a float', 1.5, /floating-point number 1.5/],
    ['a JS integer number', 3, /JS number 3 \(integers must be bigint\)/],
    ['NaN', Number.NaN, /floating-point/],
    ['undefined', undefined, /JS type undefined/],
    ['a function', () => 1, /JS type function/],
    ['a Date', new Date(0), /a Date/],
    ['a plain object', { a: 1 }, /a plain object/],
    ['a Map', new Map(), /a Map/],
    ['an integer above 2^63-1', 2n ** 63n, /outside the signed 64-bit range/],
    ['an integer below -2^63', -(2n ** 63n) - 1n, /outside the signed 64-bit range/],
    ['a lone surrogate', 'a\uD800b', /lone UTF-16 surrogate/],
    ['a malformed uuid', new Uuid('not-a-uuid'), /uuid "not-a-uuid"/],
  ])('%s → canonical/unsupported-type', (_n, v, message) => {
    const e = failure(v);
    expect(e.code).toBe('canonical/unsupported-type');
    expect(e.message).toMatch(message);
    expect(e.hint).toBeTruthy();
  });

  test('the error names the key path of the bad value', () => {
    const v = ednMap([[kw('event/body'), ednMap([[kw('fact/value'), Object.freeze([1n, 2.5]) as unknown as EdnValue]])]]);
    const e = failure(v);
    expect(e.where).toBe('at [:event/body :fact/value 1]');
    expect(e.describe()).toContain('at [:event/body :fact/value 1]');
  });

  test('nesting: 512 levels are written, 513 are canonical/too-deep', () => {
    let v: EdnValue = 1n;
    for (let i = 0; i < 512; i++) v = Object.freeze([v]);
    expect(emit(v)).toBe('['.repeat(512) + '1' + ']'.repeat(512));
    const deeper = ednSet([v]);
    const e = failure(deeper);
    expect(e.code).toBe('canonical/too-deep');
    let huge: EdnValue = null;
    for (let i = 0; i < 50_000; i++) huge = ednList([huge]);
    expect(failure(huge).code).toBe('canonical/too-deep');
  });

  test('a map built with a foreign key-text function that collides is refused, not written twice', () => {
    const m = EdnMap.from([[kw('a'), 1n], [kw('b'), 2n]], (k) => emit(k));
    expect(emit(m)).toBe('{:a 1 :b 2}');
    let n = 0;
    const bad = EdnMap.from([[kw('a'), 1n], [kw('a'), 2n]], () => `text-${n++}`);
    expect(bad.size).toBe(2);
    expect(failure(bad).message).toMatch(/key :a twice|twice/);
  });
});

describe('output shape', () => {
  test('one space between elements, no commas, no trailing newline', () => {
    const text = emit(readEdn('{:a [1 , 2] :b #{3}}\n'));
    expect(text).toBe('{:a [1 2] :b #{3}}');
    expect(emitBytes(readEdn('"é"')).length).toBe(4);
  });

  test('symbols and keywords emit their text verbatim', () => {
    expect(emit(kw(':ns/name'))).toBe(':ns/name');
    expect(emit(readEdn('foo/bar'))).toBe('foo/bar');
  });

  test('instants at the edges of the value model', () => {
    expect(emit(new Instant(-0))).toBe('#inst "1970-01-01T00:00:00Z"');
    expect(emit(new Instant(Number.MAX_SAFE_INTEGER))).toMatch(/^#inst "\+\d{6}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"$/);
    const min = emit(new Instant(Number.MIN_SAFE_INTEGER));
    expect(min).toMatch(/^#inst "-\d{6}-/);
    expect(emit(readEdn(min))).toBe(min);
  });
});

describe('constructors and lookup', () => {
  test('ednMap: later values replace earlier ones, = keys collapse keeping the first key', () => {
    expect(emit(ednMap([[kw('a'), 1n], [kw('a'), 2n]]))).toBe('{:a 2}');
    expect(emit(ednMap([[Object.freeze([1n]), 1n], [ednList([1n]), 2n]]))).toBe('{[1] 2}');
    expect(emit(ednSet([ednList([1n]), Object.freeze([1n])]))).toBe('#{(1)}');
  });

  test('ednGet and ednGetIn read by keyword text or by any key', () => {
    const v = readEdn('{:event/type :fact/assert :event/body {:fact/path [:a]} "s" 1 [1] 2}');
    expect(ednGet(v, 'event/type')).toBe(kw('fact/assert'));
    expect(ednGet(v, ':event/type')).toBe(kw('fact/assert'));
    expect(ednGet(v, kw('event/type'))).toBe(kw('fact/assert'));
    expect(emit(ednGetIn(v, ['event/body', 'fact/path']) as EdnValue)).toBe('[:a]');
    expect(ednGet(v, Object.freeze([1n]))).toBe(2n);
    expect(ednGet(v, 'missing')).toBeUndefined();
    expect(ednGet(1n, 'x')).toBeUndefined();
    expect(ednGetIn(v, ['event/type', 'x'])).toBeUndefined();
  });

  test('ednEquals is Clojure =', () => {
    expect(ednEquals(readEdn('[1 (2 [3])]'), readEdn('([1] (2 (3)))'))).toBe(false);
    expect(ednEquals(readEdn('[1 (2 [3])]'), readEdn('(1 [2 (3)])'))).toBe(true);
    expect(ednEquals(readEdn('{:a [1]}'), readEdn('{:a (1)}'))).toBe(true);
    expect(ednEquals(readEdn('#{[1] "x"}'), readEdn('#{(1) "x"}'))).toBe(true);
    expect(ednEquals(readEdn('1'), readEdn('"1"'))).toBe(false);
    expect(ednEquals(readEdn(':a'), readEdn('a'))).toBe(false);
    expect(ednEquals(readEdn('{}'), readEdn('#{}'))).toBe(false);
    expect(ednEquals(readEdn('[]'), readEdn('#{}'))).toBe(false);
    expect(ednEquals(readEdn('#uuid "00000000-0000-0000-0000-00000000000A"'), new Uuid('00000000-0000-0000-0000-00000000000a'))).toBe(true);
    expect(ednEquals(EdnSet.from([], emit), ednSet([]))).toBe(true);
  });
});

describe('prStr (human, not canonical)', () => {
  test('maps get Clojure commas, the rest prints canonically and in canonical order', () => {
    expect(prStr(readEdn('{:b [1 2] :a #{:y :x} :c {:e 1 :d (2)}}'))).toBe('{:a #{:x :y}, :b [1 2], :c {:d (2), :e 1}}');
    expect(prStr(readEdn('"a\\"b"'))).toBe('"a\\"b"');
  });

  test('reads back to the same value', () => {
    fc.assert(
      fc.property(arbEdn, (v) => {
        expect(emit(readEdn(prStr(v)))).toBe(emit(v));
      }),
    );
  });

  test('never throws, even on values emit refuses', () => {
    expect(prStr(Object.freeze([1.5 as unknown as EdnValue, 2n]))).toBe('[#<number 1.5> 2]');
  });
});
