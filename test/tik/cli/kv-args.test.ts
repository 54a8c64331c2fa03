import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emit, readEdn } from '../../../src/tik/edn/index.js';
import { isMap, Keyword } from '../../../src/tik/edn/value.js';
import { dottedPath, keepsRawText, parseAssignment, parseCliValue, parseKeyPath } from '../../../src/tik/app/kv-args.js';

const segment = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);

describe('dotted keys (§10)', () => {
  it('a.b becomes [:a :b]; a leading colon is allowed', () => {
    expect(emit([...parseKeyPath('resolution.ref')])).toBe('[:resolution :ref]');
    expect(emit([...parseKeyPath(':customer.:ack')])).toBe('[:customer :ack]');
    expect(emit([...parseKeyPath('category')])).toBe('[:category]');
  });

  it('dotted text and the path round-trip (property)', () => {
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), (segs) => {
        const text = segs.join('.');
        expect(dottedPath(parseKeyPath(text))).toBe(text);
      }),
    );
  });

  it('empty segments and spaces are refused with cli/bad-key', () => {
    for (const bad of ['', '.', 'a.', '.a', 'a..b', 'a b', '1abc']) {
      expect(() => parseKeyPath(bad)).toThrow(expect.objectContaining({ code: 'cli/bad-key' }));
    }
  });
});

describe('command-line values (§10)', () => {
  it('one EDN form if it parses, a bare word becomes a keyword, else a string', () => {
    expect(parseCliValue('high')).toBe(Keyword.of('high'));
    expect(parseCliValue(':high')).toBe(Keyword.of('high'));
    expect(parseCliValue('42')).toBe(42n);
    expect(parseCliValue('"abc"')).toBe('abc');
    expect(parseCliValue('true')).toBe(true);
    expect(parseCliValue('nil')).toBe(null);
    expect(emit(parseCliValue('{:a [1 2]}'))).toBe('{:a [1 2]}');
    expect(parseCliValue('two words')).toBe('two words');
    expect(parseCliValue('2026-07-08')).toBe('2026-07-08');
    expect(parseCliValue('1.5')).toBe('1.5');
    expect(parseCliValue('')).toBe('');
    expect(parseCliValue('high', { raw: true })).toBe('high');
  });

  it('any string is read to some value and never throws (property)', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const v = parseCliValue(s);
        // Whatever it became, it has a canonical form.
        expect(typeof emit(v)).toBe('string');
      }),
    );
  });

  it('a canonical EDN text is read back to the same value (property over keywords, integers, strings)', () => {
    const value = fc.oneof(
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      segment.map((s) => Keyword.of(s)),
      fc.string().filter((s) => s.length > 0),
    );
    fc.assert(
      fc.property(value, (v) => {
        expect(emit(parseCliValue(emit(v)))).toBe(emit(v));
      }),
    );
  });

  it('k=v splits at the first =', () => {
    const a = parseAssignment('note=a=b');
    expect(a.key).toBe('note');
    expect(a.valueText).toBe('a=b');
    expect(() => parseAssignment('=x')).toThrow(expect.objectContaining({ code: 'cli/usage' }));
    expect(() => parseAssignment('x')).toThrow(expect.objectContaining({ code: 'cli/usage' }));
  });

  it('declared :string paths and [:link …] keep raw text', () => {
    const def = readEdn('{:process/facts {[:resolution :ref] [:string {:min 8}] [:note] :string [:severity] [:enum :low]}}');
    if (!isMap(def)) throw new Error('fixture');
    expect(keepsRawText(def, parseKeyPath('resolution.ref'))).toBe(true);
    expect(keepsRawText(def, parseKeyPath('note'))).toBe(true);
    expect(keepsRawText(def, parseKeyPath('severity'))).toBe(false);
    expect(keepsRawText(def, parseKeyPath('link.depends-on'))).toBe(true);
    expect(keepsRawText(undefined, parseKeyPath('other'))).toBe(false);
  });

  it('a raw-text path keeps a value that reads as a string, and takes the trimmed text of any other (upstream typed-value)', () => {
    // a probe prints ref="renovate.json@8bbca3f" ("quote prose"): the EDN string, not its quotes
    expect(parseCliValue('"renovate.json@8bbca3f"', { raw: true })).toBe('renovate.json@8bbca3f');
    expect(parseCliValue('"  padded "', { raw: true })).toBe('  padded ');
    expect(parseCliValue('12345678', { raw: true })).toBe('12345678');
    expect(parseCliValue(' a051932 ', { raw: true })).toBe('a051932');
    expect(parseCliValue(':kw', { raw: true })).toBe(':kw');
    expect(parseCliValue('two words', { raw: true })).toBe('two words');
    expect(parseCliValue('', { raw: true })).toBe('');
  });
});
