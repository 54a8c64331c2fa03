/**
 * fast-check arbitraries for EDN values (shared by the EDN property tests; other tests may import
 * them too).
 */
import fc from 'fast-check';
import { ednList, ednMap, ednSet } from '../../../src/tik/edn/construct.js';
import { EdnSymbol, Instant, Keyword, Uuid, type EdnValue } from '../../../src/tik/edn/value.js';

const nameChars = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCXYZ0123456789-_?!*+<>=.$%&'.split(''));
const firstChars = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCXYZ_?!*<>=$%&'.split(''));
const wildChars = fc.constantFrom('#', "'", 'é', 'λ', '😀', 'ß', '.', '*');
const plainName = fc.tuple(firstChars, fc.string({ unit: fc.oneof(nameChars, wildChars), maxLength: 6 })).map(([a, b]) => a + b);
// Clojure also reads a single ':' inside a name (never at its end, never doubled).
const name = fc.oneof(plainName, fc.tuple(plainName, plainName).map(([a, b]) => `${a}:${b}`));
const symbolText = fc
  .tuple(fc.option(name, { nil: undefined }), name)
  .map(([ns, n]) => (ns ? `${ns}/${n}` : n))
  .filter((t) => t !== 'nil' && t !== 'true' && t !== 'false');

export const arbKeyword = symbolText.map((t) => Keyword.of(t));
export const arbSymbol = symbolText.map((t) => EdnSymbol.of(t));
export const arbInt = fc.oneof(
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  fc.bigInt({ min: -20n, max: 20n }),
);
export const arbString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: fc.constantFrom('a', '"', '\\', '\n', '\t', '\r', '\f', '\b', ' ', 'é', '—', '😀', '\u0000'), maxLength: 8 }),
);
export const arbUuid = fc.uuid().map((u) => new Uuid(u));
export const arbInstant = fc.oneof(
  fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
  fc.integer({ min: 0, max: 4_102_444_800_000 }),
).map((ms) => new Instant(ms));

export const arbScalar: fc.Arbitrary<EdnValue> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  arbInt,
  arbString,
  arbKeyword,
  arbSymbol,
  arbUuid,
  arbInstant,
);

/** Any EDN value, nested a few levels. */
export const arbEdn: fc.Arbitrary<EdnValue> = fc.letrec<{ value: EdnValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    arbScalar,
    fc.array(tie('value'), { maxLength: 4 }).map((xs) => Object.freeze(xs) as EdnValue),
    fc.array(tie('value'), { maxLength: 4 }).map((xs) => ednList(xs) as EdnValue),
    fc.array(fc.tuple(tie('value'), tie('value')), { maxLength: 4 }).map((es) => ednMap(es) as EdnValue),
    fc.array(tie('value'), { maxLength: 4 }).map((xs) => ednSet(xs) as EdnValue),
  ),
})).value;
