import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  contentId,
  contentIdOf,
  emit,
  emitBytes,
  ednMap,
  EdnList,
  Instant,
  kw,
  prStr,
  readEdn,
  readEdnBytes,
  uuid,
  type EdnValue,
} from '../../../src/tik/edn/index.js';

const conformance = resolve(process.cwd(), '../shared/tik-conformance');

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}

const eventFiles = walk(join(conformance, 'corpus')).filter((p) => /\/events\/sha256-[0-9a-f]{64}\.edn$/.test(p));

const UNIT_GOLDEN =
  '{:event/actor "seb" :event/at #inst "2026-07-08T12:00:00Z" :event/body {:fact/path [:category] :fact/value :billing} :event/ticket #uuid "018f2f6e-7c1a-7000-8000-000000000000" :event/type :fact/assert}';

describe('§1.8 #1 the unit golden', () => {
  const entries: [EdnValue, EdnValue][] = [
    [kw('event/type'), kw('fact/assert')],
    [kw('event/ticket'), uuid('018f2f6e-7c1a-7000-8000-000000000000')],
    [kw('event/at'), new Instant(Date.UTC(2026, 6, 8, 12, 0, 0))],
    [kw('event/actor'), 'seb'],
    [kw('event/body'), ednMap([[kw('fact/path'), Object.freeze([kw('category')])], [kw('fact/value'), kw('billing')]])],
  ];

  test('the fixture map built in code emits the golden bytes and hash', () => {
    const v = ednMap(entries);
    expect(emit(v)).toBe(UNIT_GOLDEN);
    expect(contentIdOf(v)).toBe('sha256-9dc5480de9f151e82a5408ec072dcd5016b6d60792da2c0f4cf3c61815f399ce');
  });

  test('every permutation of key insertion order gives identical bytes', () => {
    const perms = (xs: [EdnValue, EdnValue][]): [EdnValue, EdnValue][][] =>
      xs.length <= 1 ? [xs] : xs.flatMap((x, i) => perms([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
    for (const p of perms(entries)) expect(emit(ednMap(p))).toBe(UNIT_GOLDEN);
  });

  test('shuffled keys, an upper-case uuid and …00.000999Z read to identical bytes', () => {
    const text =
      '{:event/type :fact/assert\n :event/ticket #uuid "018F2F6E-7C1A-7000-8000-000000000000"\n' +
      ' :event/at #inst "2026-07-08T12:00:00.000999Z", :event/body {:fact/value :billing :fact/path [:category]}\n' +
      ' :event/actor "seb"} ; trailing comment';
    const v = readEdn(text);
    expect(emit(v)).toBe(UNIT_GOLDEN);
    expect(emitBytes(v).equals(Buffer.from(UNIT_GOLDEN, 'utf8'))).toBe(true);
    expect(contentIdOf(v)).toBe('sha256-9dc5480de9f151e82a5408ec072dcd5016b6d60792da2c0f4cf3c61815f399ce');
  });
});

describe('§1.8 #2–#4 corpus event files', () => {
  test('the corpus holds the 16 event files the spec counts', () => {
    expect(eventFiles.length).toBe(16);
  });

  test.each(eventFiles.map((p) => [basename(p), p]))('%s re-emits byte-exactly and hashes to its name', (name, p) => {
    const bytes = readFileSync(p);
    const v = readEdnBytes(bytes, p);
    expect(emitBytes(v).equals(bytes)).toBe(true);
    expect(contentId(bytes)).toBe(name.replace(/\.edn$/, ''));
    expect(contentIdOf(v)).toBe(name.replace(/\.edn$/, ''));
  });

  test('#2 the root event is 366 bytes of the documented text', () => {
    const p = eventFiles.find((f) => f.endsWith('sha256-ffc504b8f4e28dd627c1b5552dffcdfef0eb661d2146245f791c906bc3f01154.edn'));
    expect(p).toBeDefined();
    const bytes = readFileSync(p as string);
    expect(bytes.length).toBe(366);
    expect(emit(readEdnBytes(bytes))).toBe(
      '{:event/actor "customer" :event/at #inst "2026-07-08T10:00:00Z" :event/body {:ticket/process :support-request :ticket/process-hash "sha256-abf62fe594cceed265dbe2374b7f67ed30778ebd66816cbad41c7422e8bb5f59" :ticket/process-version 1 :ticket/title "login broken"} :event/parents #{} :event/ticket #uuid "018f2f6e-7c1a-7000-8000-00000000c0de" :event/type :ticket/create}',
    );
  });

  test('#4 the merge event lists its two parents sorted', () => {
    const p = eventFiles.find((f) => basename(f).startsWith('sha256-366e8699'));
    const text = emit(readEdnBytes(readFileSync(p as string)));
    expect(text).toContain(
      ':event/parents #{"sha256-44d9c5881418310b67b44a31b2e9312ad2358d315cb4a2fb0f3048b54f173567" "sha256-c035c74b6111e7b8939f5d3f5df1e34a6280874b014299bbe4a63892111bd97b"}',
    );
  });

  test('#4 the retract and attach bodies', () => {
    const retract = eventFiles.find((f) => basename(f).startsWith('sha256-6424c433deae52149cde7884a7245ba80744399da87ee9cc9f9730f9758bdcee'));
    expect(emit(readEdnBytes(readFileSync(retract as string)))).toContain(
      ':event/body {:fact/path [:customer :ack] :retract/reason "misclick"}',
    );
    const attach = eventFiles.find((f) => basename(f).startsWith('sha256-fea5e722'));
    expect(emit(readEdnBytes(readFileSync(attach as string)))).toContain(
      ':event/body {:artifact/hash "sha256-deadbeef" :artifact/path "repro/crash.sh"}',
    );
  });
});

describe('§1.8 #6 process hashes', () => {
  test('the commented sweep-order source canonicalises to the documented 252 bytes and hash', () => {
    const p = join(conformance, 'corpus/sweep-order-negation/processes/sweep-order.edn');
    const v = readEdnBytes(readFileSync(p), p);
    const text = emit(v);
    expect(text).toBe(
      '{:process/guard-vocab 1 :process/id :sweep-order :process/stages [{:guards [] :stage/id :a} {:after [:a] :guards [] :stage/id :b} {:after [:a] :guards [] :stage/id :c} {:after [:b] :guards [[:not [:stage-reached :c]]] :stage/id :d}] :process/version 1}',
    );
    expect(Buffer.byteLength(text)).toBe(252);
    expect(contentIdOf(v)).toBe('sha256-c1a7e26c32e6d698514f736328462804b7f7c3a4ee23192eb8672b41bdc2c654');
  });

  test.each(['concurrent-conflict', 'support-closed-sticky'])('corpus %s support-request.edn hashes to sha256-abf62fe5…', (c) => {
    const p = join(conformance, 'corpus', c, 'processes/support-request.edn');
    expect(contentIdOf(readEdnBytes(readFileSync(p), p))).toBe(
      'sha256-abf62fe594cceed265dbe2374b7f67ed30778ebd66816cbad41c7422e8bb5f59',
    );
  });

  test('§4.2 a definition’s hash ignores comments, layout and key order', () => {
    const p = join(conformance, 'processes/support-request.edn');
    const source = readFileSync(p, 'utf8');
    const id = contentIdOf(readEdn(source, p));
    // the same data with Clojure commas and the comments stripped, and with every line re-indented
    expect(contentIdOf(readEdn(prStr(readEdn(source))))).toBe(id);
    const relaid = source
      .split('\n')
      .map((l) => '\t ' + l.trim())
      .join('\r\n');
    expect(contentIdOf(readEdn(relaid))).toBe(id);
  });

  test('every shipped process and example definition reads and re-reads to the same bytes', () => {
    const files = [
      ...walk(join(conformance, 'processes')),
      ...walk(join(conformance, 'examples')),
      join(conformance, 'roles.edn'),
      ...walk(join(conformance, 'corpus')).filter((f) => f.endsWith('expected.edn') || f.includes('/processes/')),
    ];
    expect(files.length).toBeGreaterThan(20);
    for (const p of files) {
      const text = emit(readEdnBytes(readFileSync(p), p));
      expect(emit(readEdn(text))).toBe(text);
    }
  });
});

describe('§1.2 ordering', () => {
  test('set members sort by emitted text: 10 before 9, strings first, nil last', () => {
    expect(emit(readEdn('#{10 9 -1 "a" :a nil [] #uuid "00000000-0000-0000-0000-000000000000"}'))).toBe(
      '#{"a" #uuid "00000000-0000-0000-0000-000000000000" -1 10 9 :a [] nil}',
    );
  });

  test('map keys sort by emitted text: a space sorts before ]', () => {
    expect(emit(readEdn('{[:b] 3 [:a :b] 1 [:a] 2}'))).toBe('{[:a :b] 1 [:a] 2 [:b] 3}');
  });

  test('the documented event, process and stage key orders', () => {
    const keys = (names: string[]): string => emit(ednMap(names.map((n, i) => [kw(n), BigInt(i)])));
    const order = (s: string): string[] => [...s.matchAll(/(:[^ {}]+) \d+/g)].map((m) => m[1] as string);
    expect(order(keys(['event/type', 'event/ticket', 'event/parents', 'event/body', 'event/at', 'event/actor']))).toEqual(
      [':event/actor', ':event/at', ':event/body', ':event/parents', ':event/ticket', ':event/type'],
    );
    expect(
      order(keys(['process/version', 'process/stages', 'process/roles', 'process/id', 'process/guard-vocab', 'process/facts'])),
    ).toEqual([':process/facts', ':process/guard-vocab', ':process/id', ':process/roles', ':process/stages', ':process/version']);
    expect(order(keys(['stage/sticky?', 'stage/id', 'hint', 'guards', 'after']))).toEqual([
      ':after',
      ':guards',
      ':hint',
      ':stage/id',
      ':stage/sticky?',
    ]);
  });

  test('ordering is by UTF-16 code units (Java String.compareTo), not code points', () => {
    // U+FF61 (one unit, 0xFF61) sorts after U+1F600 (surrogates 0xD83D…) in UTF-16 order.
    expect(emit(readEdn('#{"😀" "｡"}'))).toBe('#{"😀" "｡"}');
    expect(emit(readEdn('#{"｡" "😀"}'))).toBe('#{"😀" "｡"}');
  });
});

describe('§1.3 strings', () => {
  test('exactly seven characters are escaped; other controls and non-ASCII are raw', () => {
    const s = '"\\\n\t\r\f\b' + '\u0001\u007f\u2014é😀';
    expect(emit(s)).toBe('"\\"\\\\\\n\\t\\r\\f\\b' + '\u0001\u007f\u2014é😀"');
    expect(emitBytes('—').equals(Buffer.from([0x22, 0xe2, 0x80, 0x94, 0x22]))).toBe(true);
  });

  test('\\uXXXX escapes read to the raw character', () => {
    expect(emit(readEdn('"\\u2014 \\u00e9 \\uD83D\\uDE00 \\u0041"'))).toBe('"— é 😀 A"');
  });
});

describe('§1.4 instants', () => {
  const at = (text: string): string => emit(readEdn(`#inst "${text}"`));

  test('.013Z and .660Z keep three digits, whole seconds have no fraction', () => {
    expect(at('2026-07-10T07:51:00.013Z')).toBe('#inst "2026-07-10T07:51:00.013Z"');
    expect(at('2026-07-10T10:05:04.66Z')).toBe('#inst "2026-07-10T10:05:04.660Z"');
    expect(at('2026-07-10T10:05:04.660000Z')).toBe('#inst "2026-07-10T10:05:04.660Z"');
    expect(at('2026-07-10T12:28:52Z')).toBe('#inst "2026-07-10T12:28:52Z"');
    expect(at('2026-07-10T12:28:52.000Z')).toBe('#inst "2026-07-10T12:28:52Z"');
    expect(at('2026-07-10T12:00:00Z')).toBe('#inst "2026-07-10T12:00:00Z"');
  });

  test('fractions truncate to milliseconds: …00.123456789Z emits as …00.123Z', () => {
    expect(at('2026-07-08T12:00:00.123456789Z')).toBe('#inst "2026-07-08T12:00:00.123Z"');
    expect(at('2026-07-08T12:00:00.999999999Z')).toBe('#inst "2026-07-08T12:00:00.999Z"');
    expect(at('2026-07-08T12:00:00.000999Z')).toBe('#inst "2026-07-08T12:00:00Z"');
  });

  test('before 1970 truncation is toward −∞ on the instant line', () => {
    expect(at('1969-12-31T23:59:59.9999Z')).toBe('#inst "1969-12-31T23:59:59.999Z"');
    expect(emit(new Instant(-1))).toBe('#inst "1969-12-31T23:59:59.999Z"');
  });

  test('years outside 0000–9999 print as Java prints them', () => {
    expect(emit(new Instant(Date.UTC(10000, 0, 1)))).toBe('#inst "+10000-01-01T00:00:00Z"');
    expect(at('+10000-01-01T00:00:00Z')).toBe('#inst "+10000-01-01T00:00:00Z"');
    expect(at('-0001-06-15T10:00:00.5Z')).toBe('#inst "-0001-06-15T10:00:00.500Z"');
    expect(at('0000-01-01T00:00:00Z')).toBe('#inst "0000-01-01T00:00:00Z"');
    expect(at('-10001-03-01T00:00:00Z')).toBe('#inst "-10001-03-01T00:00:00Z"');
    const d = new Date(0);
    d.setUTCFullYear(-1, 5, 15);
    d.setUTCHours(10, 0, 0, 500);
    expect(emit(new Instant(d.getTime()))).toBe('#inst "-0001-06-15T10:00:00.500Z"');
  });

  test('an offset converts to UTC, as Instant.parse does on JDK 12+', () => {
    expect(at('2026-07-08T12:00:00+01:00')).toBe('#inst "2026-07-08T11:00:00Z"');
    expect(at('2026-07-08T00:30:00.5-05:30')).toBe('#inst "2026-07-08T06:00:00.500Z"');
    expect(at('2026-07-08T12:00:00-00:00')).toBe('#inst "2026-07-08T12:00:00Z"');
    expect(at('2026-07-08T12:00:00+18:00')).toBe('#inst "2026-07-07T18:00:00Z"');
    expect(at('2026-07-08T12:00:00+01:02:03')).toBe('#inst "2026-07-08T10:57:57Z"');
  });

  test('Java edge forms: 24:00:00 is the next day, 23:59:60 reads as :59, lower-case t and z', () => {
    expect(at('2026-12-31T24:00:00Z')).toBe('#inst "2027-01-01T00:00:00Z"');
    expect(at('2026-06-30T23:59:60Z')).toBe('#inst "2026-06-30T23:59:59Z"');
    expect(at('2026-07-08t12:00:00z')).toBe('#inst "2026-07-08T12:00:00Z"');
    expect(at('2026-07-08T12:00:00.Z')).toBe('#inst "2026-07-08T12:00:00Z"');
  });

  test('instant emission agrees with Date.toISOString across its range', () => {
    for (const ms of [0, 1, 999, 1000, 86_399_999, 951_782_400_000, 1_783_512_000_013, 253_402_300_799_999, -62_135_596_800_000]) {
      const iso = new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
      expect(emit(new Instant(ms))).toBe(`#inst "${iso}"`);
    }
  });
});

describe('§1.5 uuids and §1.1 values', () => {
  test('uuids are accepted in any case and emitted lower case', () => {
    expect(emit(readEdn('#uuid "ABCDEF01-2345-6789-ABCD-EF0123456789"'))).toBe('#uuid "abcdef01-2345-6789-abcd-ef0123456789"');
    expect(emit(uuid('ABCDEF01-2345-6789-ABCD-EF0123456789'))).toBe('#uuid "abcdef01-2345-6789-abcd-ef0123456789"');
  });

  test('integers: signed 64-bit, no +, no leading zeros', () => {
    expect(emit(readEdn('+5'))).toBe('5');
    expect(emit(readEdn('-0'))).toBe('0');
    expect(emit(readEdn('9223372036854775807'))).toBe('9223372036854775807');
    expect(emit(readEdn('-9223372036854775808'))).toBe('-9223372036854775808');
  });

  test('scalars, lists and symbols', () => {
    expect(emit(readEdn('(nil true false sym ns/sym / :kw :ns/kw "s")'))).toBe('(nil true false sym ns/sym / :kw :ns/kw "s")');
    expect(emit(new EdnList([]))).toBe('()');
    expect(emit(readEdn('[#{} {} () []]'))).toBe('[#{} {} () []]');
  });
});
