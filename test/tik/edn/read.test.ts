import { describe, expect, test } from 'vitest';
import type { Instant} from '../../../src/tik/edn/index.js';
import { emit, EdnList, EdnMap, EdnSet, EdnSymbol, Keyword, readEdn, readEdnBytes, Uuid } from '../../../src/tik/edn/index.js';
import { TikError } from '../../../src/tik/errors.js';

function rejection(text: string | Uint8Array): TikError {
  try {
    if (typeof text === 'string') readEdn(text, 'in.edn');
    else readEdnBytes(text, 'in.edn');
  } catch (e) {
    expect(e).toBeInstanceOf(TikError);
    return e as TikError;
  }
  throw new Error(`expected ${String(text)} to be rejected`);
}

/** [class, input, message pattern, line, column] */
const cases: [string, string, RegExp, number, number][] = [
  ['character literal', '[1 \\a]', /character literals/, 1, 4],
  ['unknown tag', '{:a #foo "x"}', /unknown tag #foo/, 1, 5],
  ['symbolic value', '##Inf', /symbolic values/, 1, 1],
  ['regex', '#"a+"', /regular expressions/, 1, 1],
  ['namespaced map', '#:a{:b 1}', /namespaced maps/, 1, 1],
  ['other dispatch', '#(inc %)', /unsupported dispatch '#\('/, 1, 1],
  ['lone #', '[# 1]', /lone '#'/, 1, 2],
  ['metadata', '^:m [1]', /metadata/, 1, 1],
  ['float', '\n  1.5', /floating-point/, 2, 3],
  ['exponent', '1e5', /floating-point/, 1, 1],
  ['ratio', '[1/2]', /ratios/, 1, 2],
  ['BigInt suffix', '[0 5N]', /BigInt/, 1, 4],
  ['BigDecimal suffix', '5M', /BigDecimal/, 1, 1],
  ['octal', '017', /leading zero/, 1, 1],
  ['hex', '0x1F', /hexadecimal/, 1, 1],
  ['radix', '2r101', /radix/, 1, 1],
  ['integer above 64 bits', '9223372036854775808', /64-bit/, 1, 1],
  ['integer below 64 bits', '-9223372036854775809', /64-bit/, 1, 1],
  ['unclosed vector', '[1 2', /never closed/, 1, 1],
  ['unclosed map on a later line', ';; c\n{:a\n 1', /never closed/, 2, 1],
  ['unclosed set', '#{1', /never closed/, 1, 1],
  ['stray closer', '1)', /more than one|no open bracket/, 1, 2],
  ['stray closer alone', ')', /no open bracket/, 1, 1],
  ['mismatched closer', '[1 2}', /mismatched '\}'.*'\['.*line 1, column 1/, 1, 5],
  ['unterminated string', '["abc', /unterminated string/, 1, 2],
  ['bad escape', '"a\\qb"', /unsupported escape \\q/, 1, 3],
  ['octal string escape', '"\\101"', /unsupported escape \\1/, 1, 2],
  ['short \\u escape', '"\\u12"', /four hex digits/, 1, 2],
  ['lone surrogate escape', '"x\\uD800y"', /lone UTF-16 surrogate/, 1, 1],
  ['lone low surrogate escape', '  "\\uDC00"', /lone UTF-16 surrogate/, 1, 3],
  ['odd map', '{:a 1 :b}', /even number of forms: the key :b/, 1, 9],
  ['duplicate map key', '{:a 1\n :a 2}', /duplicate map key :a/, 2, 2],
  ['duplicate map key by =', '{[1] 1 (1) 2}', /duplicate map key \(1\)/, 1, 8],
  ['duplicate map key by =, list first', '{(1) 1 [1] 2}', /duplicate map key \[1\]/, 1, 8],
  ['duplicate map key by =, both lists', '{[(1)] 1 ([1]) 2}', /duplicate map key \(\[1\]\)/, 1, 10],
  ['duplicate nested map key by =', '{{:a (1)} 1 {:a [1]} 2}', /duplicate map key \{:a \[1\]\}/, 1, 13],
  ['duplicate set member', '#{1 2 1}', /duplicate set member 1/, 1, 7],
  ['duplicate set member by =', '#{[:a] (:a)}', /duplicate set member/, 1, 8],
  ['second form', '{:a 1} {:b 2}', /more than one top-level form/, 1, 8],
  ['second form after comment', '1 ; one\n2', /more than one top-level form/, 2, 1],
  ['empty text', '', /no form/, 1, 1],
  ['only a comment', ' ; nothing\n', /no form/, 2, 1],
  ['discard with nothing to discard', '[1 #_]', /mismatched|a form was expected|no open bracket/, 1, 6],
  ['discard at the end', '1 #_', /a form was expected/, 1, 5],
  ['#inst of a non-string', '#inst 5', /must be followed by a string/, 1, 7],
  ['#inst without an offset', '#inst "2026-07-08T12:00:00"', /ISO-8601 instant/, 1, 7],
  ['#inst with a short offset', '#inst "2026-07-08T12:00:00+01"', /ISO-8601 instant/, 1, 7],
  ['#inst with a compact offset', '#inst "2026-07-08T12:00:00+0100"', /ISO-8601 instant/, 1, 7],
  ['#inst with an offset beyond 18 hours', '#inst "2026-07-08T12:00:00+18:01"', /outside ±18:00/, 1, 7],
  ['#inst with a named zone', '#inst "2026-07-08T12:00:00[Europe/Berlin]"', /ISO-8601 instant/, 1, 7],
  ['#inst without seconds', '#inst "2026-07-08T12:00Z"', /ISO-8601 instant/, 1, 7],
  ['#inst with ten fraction digits', '#inst "2026-07-08T12:00:00.1234567890Z"', /ISO-8601 instant/, 1, 7],
  ['#inst on February 30', '#inst "2026-02-30T12:00:00Z"', /day 30 does not exist/, 1, 7],
  ['#inst on February 29 of a common year', '#inst "2026-02-29T12:00:00Z"', /day 29/, 1, 7],
  ['#inst hour 25', '#inst "2026-02-03T25:00:00Z"', /hour 25/, 1, 7],
  ['#inst second 60 outside 23:59', '#inst "2026-02-03T12:00:60Z"', /second 60/, 1, 7],
  ['#inst 24:00:01', '#inst "2026-02-03T24:00:01Z"', /hour 24/, 1, 7],
  ['#inst +year with four digits', '#inst "+2026-02-03T12:00:00Z"', /'\+' sign/, 1, 7],
  ['#inst five-digit year without +', '#inst "10000-02-03T12:00:00Z"', /needs a '\+' sign/, 1, 7],
  ['#inst minus-zero year', '#inst "-0000-02-03T12:00:00Z"', /minus zero/, 1, 7],
  ['#inst month 13', '#inst "2026-13-03T12:00:00Z"', /month 13/, 1, 7],
  ['#inst beyond the safe range', '#inst "+9999999999-01-01T00:00:00Z"', /outside the supported range/, 1, 7],
  ['#uuid short groups', '#uuid "1-2-3-4-5"', /8-4-4-4-12/, 1, 7],
  ['#uuid non-hex', '#uuid "0000000g-0000-0000-0000-000000000000"', /8-4-4-4-12/, 1, 7],
  ['#uuid of a keyword', '#uuid :x', /must be followed by a string/, 1, 7],
  ['auto-resolved keyword', ':a ::b', /invalid token "::b"|more than one/, 1, 4],
  ['bare auto-resolved keyword', '::b', /invalid token "::b"/, 1, 1],
  ['empty keyword', '[: 1]', /invalid token ":"/, 1, 2],
  ['keyword ending with a colon', ':a:', /invalid token ":a:"/, 1, 1],
  ['symbol with an empty name', 'a/', /invalid token "a\/"/, 1, 1],
  ['keyword with an empty namespace', ':/a', /invalid token/, 1, 1],
  ['keyword with a leading digit after a namespace slash', ':a/1', /invalid token/, 1, 1],
  ['lone surrogate in the text', '"ok" \uD800', /lone UTF-16 surrogate/, 1, 6],
  ['byte-order mark', '\uFEFF{}', /byte-order mark/, 1, 1],
  ['column counts code points', '"😀😀" 1.0', /floating-point/, 1, 6],
];

describe('the reader rejects everything outside the subset, naming line and column', () => {
  test.each(cases)('%s', (_name, input, message, line, column) => {
    const e = rejection(input);
    expect(e.code).toBe('edn/malformed');
    expect(e.message).toMatch(message);
    expect(e.where).toBe('in.edn');
    expect(e.position).toEqual({ line, column });
    expect(e.hint).toBeTruthy();
    expect(e.describe()).toContain(`in.edn, line ${line}, column ${column}`);
  });

  test('nesting: 512 levels read, 513 are rejected at the 513th bracket', () => {
    const ok = '['.repeat(512) + ']'.repeat(512);
    expect(emit(readEdn(ok))).toBe(ok);
    const e = rejection('\n' + '['.repeat(513) + ']'.repeat(513));
    expect(e.message).toMatch(/nested more than 512/);
    expect(e.position).toEqual({ line: 2, column: 513 });
    const mixed = rejection('{:a ' + '#{('.repeat(256) + ')}'.repeat(256) + '}');
    expect(mixed.message).toMatch(/nested more than 512/);
  });

  test('deep input never overflows the stack', () => {
    const e = rejection('['.repeat(100_000));
    expect(e.message).toMatch(/nested more than 512/);
    expect(rejection('#_'.repeat(100_000) + '1').message).toMatch(/nested #_ discards or tags/);
    expect(rejection('#inst '.repeat(100_000) + '"2026-01-01T00:00:00Z"').message).toMatch(/nested #_ discards or tags/);
    expect(rejection('[' + '#_ '.repeat(100_000) + '1]').message).toMatch(/nested #_ discards or tags/);
  });

  test('tags and discards do not count as collection nesting', () => {
    const inner = '#inst "2026-01-01T00:00:00Z"';
    const deep = '['.repeat(512) + inner + ']'.repeat(512);
    expect(emit(readEdn(deep))).toBe(deep);
    expect(emit(readEdn('['.repeat(512) + '#_ #_ 1 2 3' + ']'.repeat(512)))).toBe('['.repeat(512) + '3' + ']'.repeat(512));
    expect(emit(readEdn('#_'.repeat(100) + '1 '.repeat(100) + ':kept'))).toBe(':kept');
  });

  test('non-text input from untyped callers is an error, not a crash', () => {
    expect(() => readEdn(undefined as unknown as string)).toThrow(TikError);
    expect(() => readEdnBytes('{}' as unknown as Uint8Array)).toThrow(TikError);
  });

  test('invalid UTF-8 is rejected with the byte offset and position', () => {
    const bytes = Buffer.concat([Buffer.from('{:a\n "x'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const e = rejection(bytes);
    expect(e.message).toMatch(/invalid UTF-8 at byte offset 7/);
    expect(e.position).toEqual({ line: 2, column: 4 });
    expect(rejection(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22])).message).toMatch(/UTF-8/); // encoded surrogate
    expect(rejection(Buffer.from([0x22, 0xc0, 0xaf, 0x22])).message).toMatch(/UTF-8/); // overlong
    expect(rejection(Buffer.from([0x22, 0xe2, 0x80])).message).toMatch(/UTF-8/); // truncated
  });
});

describe('the reader accepts the whole subset', () => {
  test('comments, commas and discards anywhere', () => {
    const text = `
      ;; header
      {:a 1, :b #_ :ignored 2 ; trailing
       #_#_ :c 3
       :d [1,2 , 3 #_ (nested [form])]
       :e #inst #_ "x" "2026-01-01T00:00:00Z"}
      #_ {:discarded "after"}
    `;
    expect(emit(readEdn(text))).toBe('{:a 1 :b 2 :d [1 2 3] :e #inst "2026-01-01T00:00:00Z"}');
  });

  test('types of the values read', () => {
    const v = readEdn('[nil true false 42 "s" :k/w sym #uuid "00000000-0000-0000-0000-00000000000A" #inst "1970-01-01T00:00:00.001Z" (1) {1 2} #{1}]');
    expect(Array.isArray(v)).toBe(true);
    const xs = v as readonly unknown[];
    expect(xs[0]).toBeNull();
    expect(xs[1]).toBe(true);
    expect(xs[2]).toBe(false);
    expect(xs[3]).toBe(42n);
    expect(xs[4]).toBe('s');
    expect(xs[5]).toBe(Keyword.of('k/w'));
    expect(xs[6]).toBe(EdnSymbol.of('sym'));
    expect(xs[7]).toBeInstanceOf(Uuid);
    expect((xs[7] as Uuid).text).toBe('00000000-0000-0000-0000-00000000000a');
    expect((xs[8] as Instant).ms).toBe(1);
    expect(xs[9]).toBeInstanceOf(EdnList);
    expect(xs[10]).toBeInstanceOf(EdnMap);
    expect(xs[11]).toBeInstanceOf(EdnSet);
    expect(Object.isFrozen(v)).toBe(true);
  });

  test('symbols and keywords as Clojure reads them', () => {
    expect(emit(readEdn('[:1 :a/b/c a#b \'q + - . -x +y :ns/- *foo* <=> :a.b/c.d! ключ :é]'))).toBe(
      '[:1 :a/b/c a#b \'q + - . -x +y :ns/- *foo* <=> :a.b/c.d! ключ :é]',
    );
  });

  test('tokens end at strings and brackets without whitespace', () => {
    expect(emit(readEdn('[a"b"c(d)[e]{f g}]'))).toBe('[a "b" c (d) [e] {f g}]');
  });

  test('unicode whitespace separates forms as Java does; no-break space does not', () => {
    expect(emit(readEdn('[1\u20032\u30003]'))).toBe('[1 2 3]');
    expect(emit(readEdn('[a\u00a0b]'))).toBe('[a\u00a0b]');
  });

  test('the same text read twice is the same value in the same canonical map order', () => {
    const t = '{:z 1 :a 2 "s" 3 [1] 4}';
    expect(emit(readEdn(t))).toBe('{"s" 3 :a 2 :z 1 [1] 4}');
  });
});
