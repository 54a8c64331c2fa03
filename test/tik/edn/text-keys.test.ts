import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { emit, ednMap, ednSet, EdnSymbol, kw, readEdn, type EdnValue } from '../../../src/tik/edn/index.js';
import { LONG_TEXT, narrowDigests, TextKeys, LongText } from '../../../src/tik/edn/text-keys.js';
import { EdnMap, EdnSet } from '../../../src/tik/edn/value.js';

// Long texts (LONG_TEXT units or more) are filed by digest in every table keyed by text (issue 13:
// V8 hashes a long string by its length alone). A digest only proposes a candidate: texts that
// differ only in their last character stay apart, equal texts are one key, whether digests are
// full width or every digest collides (0 bits kept).

const long = (last: string, length = 20_000): string => 'x'.repeat(length - 1) + last;

for (const bits of [53, 0]) {
  describe(`long texts with ${bits} digest bits kept`, () => {
    beforeAll(() => narrowDigests(bits));
    afterAll(() => narrowDigests(53));

    test('a table gives one key per distinct text, and finds it again', () => {
      const keys = new TextKeys();
      const a = keys.key(long('a'));
      const b = keys.key(long('b'));
      expect(a).toBeInstanceOf(LongText);
      expect(a).not.toBe(b);
      expect(keys.key(long('a'))).toBe(a);
      expect(keys.find(long('b'))).toBe(b);
      expect(keys.find(long('c'))).toBeUndefined();
      expect(keys.key('s'.repeat(LONG_TEXT - 1))).toBe('s'.repeat(LONG_TEXT - 1));
      keys.drop(a as LongText);
      expect(keys.find(long('a'))).toBeUndefined();
      expect(keys.find(long('b'))).toBe(b);
    });

    test('the reader keeps long strings that differ only in their last character apart', () => {
      const text = `#{"${long('a')}" "${long('b')}" "${long('c')}"}`;
      const s = readEdn(text) as EdnSet;
      expect(s.size).toBe(3);
      expect(emit(s)).toBe(text);
      expect(s.hasText(`"${long('b')}"`)).toBe(true);
      expect(s.hasText(`"${long('d')}"`)).toBe(false);
      const m = readEdn(`{"${long('a')}" 1 "${long('b')}" 2 :${long('k')} 3}`) as EdnMap;
      expect(m.size).toBe(3);
      expect(m.getByText(`"${long('b')}"`)).toBe(2n);
      expect(m.getByText(`"${long('c')}"`)).toBeUndefined();
      expect(m.get(kw(long('k')))).toBe(3n);
      expect(m.get(kw(long('j')))).toBeUndefined();
      expect([...m.textEntries()].map(([t]) => t)).toEqual([`"${long('a')}"`, `"${long('b')}"`, ':' + long('k')]);
    });

    test('equal long strings, keywords and symbols are duplicates (nested too)', () => {
      expect(() => readEdn(`#{"${long('a')}" "${long('b')}" "${long('a')}"}`)).toThrow(/duplicate set member/);
      expect(() => readEdn(`{"${long('a')}" 1 "${long('a')}" 2}`)).toThrow(/duplicate map key/);
      expect(() => readEdn(`#{:${long('a')} :${long('a')}}`)).toThrow(/duplicate set member/);
      expect(() => readEdn(`{${long('a')} 1 ${long('a')} 2}`)).toThrow(/duplicate map key/);
      expect(() => readEdn(`#{[#{"${long('a')}" "${long('b')}"}] (#{"${long('b')}" "${long('a')}"})}`)).toThrow(/duplicate set member/);
      expect(emit(readEdn(`#{[#{"${long('a')}" "${long('b')}"}] (#{"${long('a')}" "${long('c')}"})}`)).length).toBeGreaterThan(80_000);
    });

    test('constructors and the intern tables file long texts the same way', () => {
      const s = ednSet([long('a'), long('b'), long('a')]);
      expect(s.size).toBe(2);
      expect(s.hasText(emit(long('b')))).toBe(true);
      const m = ednMap([[long('a'), 1n], [long('b'), 2n], [long('a'), 3n]] as [EdnValue, EdnValue][]);
      expect(m.size).toBe(2);
      expect(m.getByText(emit(long('a')))).toBe(3n);
      expect(EdnSet.from([long('a'), long('a'), long('b')], emit).size).toBe(2);
      expect(EdnMap.from([[long('b'), 1n], [long('b'), 2n]], emit).getByText(emit(long('b')))).toBe(2n);
      expect(EdnMap.single(long('z'), 1n).getByText(emit(long('z')))).toBe(1n);
      expect(EdnSet.single(long('z')).hasText(emit(long('z')))).toBe(true);
      expect(kw(long('a'))).toBe(kw(long('a')));
      expect(kw(long('a'))).not.toBe(kw(long('b')));
      expect(EdnSymbol.of(long('a'))).toBe(EdnSymbol.of(long('a')));
      expect(EdnSymbol.of(long('a')).text).toBe(long('a'));
    });
  });
}
