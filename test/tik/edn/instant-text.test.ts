import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { civilFromDays, daysFromCivil, formatInstant, parseInstant } from '../../../src/tik/edn/instant-text.js';

describe('Java Instant text at millisecond precision', () => {
  test('law: parse ∘ format is the identity over the whole value range', () => {
    fc.assert(
      fc.property(fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), (ms) => {
        expect(parseInstant(formatInstant(ms))).toBe(ms);
      }),
      { numRuns: 2000 },
    );
  });

  test('law: within Date’s range, format agrees with toISOString (years 0000–9999)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 }), (ms) => {
        const iso = new Date(ms).toISOString();
        expect(formatInstant(ms)).toBe(iso.endsWith('.000Z') ? iso.slice(0, -5) + 'Z' : iso);
      }),
      { numRuns: 2000 },
    );
  });

  test('law: extra fraction digits truncate, never round', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799 }), fc.string({ unit: fc.constantFrom(...'0123456789'.split('')), minLength: 4, maxLength: 9 }), (s, frac) => {
        const base = formatInstant(s * 1000).slice(0, -1);
        expect(parseInstant(`${base}.${frac}Z`)).toBe(s * 1000 + Number(frac.slice(0, 3)));
      }),
    );
  });

  test('law: the civil calendar round-trips for every day', () => {
    fc.assert(
      fc.property(fc.integer({ min: -110_000_000, max: 110_000_000 }), (d) => {
        const { year, month, day } = civilFromDays(d);
        expect(daysFromCivil(year, month, day)).toBe(d);
      }),
    );
  });

  test('law: on the canonical shape, parsing agrees with Date.parse (valid dates) and refuses what it refuses', () => {
    const d = (n: number, max = 10 ** n - 1) => fc.integer({ min: 0, max }).map((x) => String(x).padStart(n, '0'));
    // seconds stop at 59: Java's leap-second reading (23:59:60 → :59) is tested on its own
    const text = fc
      .tuple(d(4), d(2, 14), fc.oneof(d(2, 32), d(2)), d(2, 25), d(2, 61), d(2, 59), fc.option(d(3), { nil: undefined }))
      .map(([y, mo, dd, h, mi, s, ms]) => `${y}-${mo}-${dd}T${h}:${mi}:${s}${ms === undefined ? '' : '.' + ms}Z`);
    fc.assert(
      fc.property(text, (t) => {
        const ours = parseInstant(t);
        const js = Date.parse(t);
        // Date.parse also takes 24:00:00 as the next day, as Java does.
        if (typeof ours === 'number') expect(ours).toBe(js);
        // V8 rolls a day past the month's end over (Feb 30 → Mar 2); Java refuses it, and so do we.
        else expect(Number.isNaN(js) || new Date(js).toISOString().slice(0, 10) !== t.slice(0, 10)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  test('leap years: 2000 and 2024 have February 29, 1900 and 2100 do not', () => {
    expect(typeof parseInstant('2000-02-29T00:00:00Z')).toBe('number');
    expect(typeof parseInstant('2024-02-29T00:00:00Z')).toBe('number');
    expect(typeof parseInstant('1900-02-29T00:00:00Z')).toBe('string');
    expect(typeof parseInstant('2100-02-29T00:00:00Z')).toBe('string');
  });

  test('year boundaries print as Java does', () => {
    expect(formatInstant(Date.UTC(9999, 11, 31, 23, 59, 59, 999))).toBe('9999-12-31T23:59:59.999Z');
    expect(formatInstant(Date.UTC(9999, 11, 31, 23, 59, 59, 999) + 1)).toBe('+10000-01-01T00:00:00Z');
    expect(formatInstant(-62_167_219_200_000)).toBe('0000-01-01T00:00:00Z');
    expect(formatInstant(-62_167_219_200_001)).toBe('-0001-12-31T23:59:59.999Z');
    expect(formatInstant(-377_736_739_200_000)).toBe('-10000-01-01T00:00:00Z');
  });
});
