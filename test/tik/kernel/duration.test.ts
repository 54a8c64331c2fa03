import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { isDuration, parseDuration, parseDurationMillis, toMillis, toMillisCeil, toNanos } from '../../../src/tik/kernel/duration.js';
import { TikError } from '../../../src/tik/errors.js';

/** [text, seconds, nanos] as java.time.Duration.parse gives them (JDK 17; Javadoc examples included). */
const known: [string, bigint, number][] = [
  ['PT48H', 172_800n, 0],
  ['PT20.345S', 20n, 345_000_000],
  ['PT15M', 900n, 0],
  ['PT10H', 36_000n, 0],
  ['P2D', 172_800n, 0],
  ['P2DT3H4M', 183_840n, 0],
  ['PT-6H3M', -21_420n, 0],
  ['-PT6H3M', -21_780n, 0],
  ['-PT-6H+3M', 21_420n, 0],
  ['PT0.5S', 0n, 500_000_000],
  ['PT-0.5S', -1n, 500_000_000],
  ['PT-1.5S', -2n, 500_000_000],
  ['-PT1.5S', -2n, 500_000_000],
  ['PT1.000000001S', 1n, 1],
  ['PT1,5S', 1n, 500_000_000],
  ['PT1.S', 1n, 0],
  ['pt48h', 172_800n, 0],
  ['p1dt1h1m1.1s', 90_061n, 100_000_000],
  ['+P1D', 86_400n, 0],
  ['P+1D', 86_400n, 0],
  ['P-1D', -86_400n, 0],
  ['P1DT0S', 86_400n, 0],
  ['PT0S', 0n, 0],
  ['P0D', 0n, 0],
  ['PT100H', 360_000n, 0],
  ['PT007M', 420n, 0],
  ['PT9223372036854775807S', 9_223_372_036_854_775_807n, 0],
  ['PT-9223372036854775808S', -9_223_372_036_854_775_808n, 0],
  ['PT9223372036854775807.999999999S', 9_223_372_036_854_775_807n, 999_999_999],
];

const invalid = [
  'P1W', 'P1M', 'P1Y', 'P1Y2M', 'P', 'PT', 'P1DT', '-P', '', ' PT1H', 'PT1H ', 'PT1.5H', 'PT1.1234567890S', 'P1D2H',
  'PT1H1H', 'PT1S1M', '+-PT1H', 'PT.5S', 'T1H', '1H', 'PT1HM', 'PT9223372036854775808S', 'P106751991167301D',
  'PT-9223372036854775808.5S', '-PT-9223372036854775808S', 'PT１H', 'P1D T1H', 'PT1M1H',
];

describe('Duration.parse compatibility', () => {
  test.each(known)('%s', (text, seconds, nanos) => {
    expect(parseDuration(text)).toEqual({ seconds, nanos });
  });

  test.each(invalid.map((t) => [t]))('%j is invalid', (text) => {
    let caught: unknown;
    try {
      parseDuration(text);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(TikError);
    expect((caught as TikError).code).toBe('duration/invalid');
    expect((caught as TikError).message).toContain(JSON.stringify(text));
    expect((caught as TikError).hint).toBeTruthy();
    expect(isDuration(text)).toBe(false);
  });

  test('weeks, months and years get a message that says so', () => {
    for (const t of ['P1W', 'P1M', 'P1Y']) expect(() => parseDuration(t)).toThrow(/weeks, months and years/);
  });

  test('isDuration refuses non-strings', () => {
    expect(isDuration(5)).toBe(false);
    expect(isDuration('PT1H')).toBe(true);
  });
});

describe('milliseconds', () => {
  test('toMillis floors like Java; toMillisCeil rounds up', () => {
    expect(parseDurationMillis('PT48H')).toBe(172_800_000n);
    expect(parseDurationMillis('PT1.000000001S')).toBe(1000n);
    expect(toMillisCeil(parseDuration('PT1.000000001S'))).toBe(1001n);
    expect(parseDurationMillis('PT0.0005S')).toBe(0n);
    expect(toMillisCeil(parseDuration('PT0.0005S'))).toBe(1n);
    expect(parseDurationMillis('PT-0.0005S')).toBe(-1n);
    expect(toMillisCeil(parseDuration('PT-0.0005S'))).toBe(0n);
    expect(parseDurationMillis('PT-0.5S')).toBe(-500n);
    expect(parseDurationMillis('PT0.123456S')).toBe(123n);
  });

  test('law: toMillis ≤ exact ≤ toMillisCeil, equal when the duration is whole milliseconds', () => {
    const part = (u: string) => fc.option(fc.tuple(fc.constantFrom('', '-', '+'), fc.nat({ max: 100_000 })).map(([s, n]) => s + n + u), { nil: '' });
    const frac = fc.option(fc.string({ unit: fc.constantFrom(...'0123456789'.split('')), maxLength: 9 }).map((d) => '.' + d), { nil: '' });
    const text = fc
      .tuple(fc.constantFrom('', '-', '+'), part('D'), part('H'), part('M'), fc.option(fc.tuple(fc.constantFrom('', '-'), fc.nat({ max: 100_000 }), frac), { nil: undefined }))
      .map(([sign, d, h, m, s]) => {
        const secs = s ? `${s[0]}${s[1]}${s[2]}S` : '';
        const time = h + m + secs;
        return `${sign}P${d}${time ? 'T' + time : ''}`;
      })
      .filter((t) => !/^[-+]?P$/.test(t));
    fc.assert(
      fc.property(text, (t) => {
        const d = parseDuration(t);
        const ns = toNanos(d);
        expect(toMillis(d) * 1_000_000n <= ns).toBe(true);
        expect(toMillisCeil(d) * 1_000_000n >= ns).toBe(true);
        expect(toMillisCeil(d) - toMillis(d)).toBe(ns % 1_000_000n === 0n ? 0n : 1n);
        expect(d.nanos >= 0 && d.nanos < 1e9).toBe(true);
        // A leading '-' negates the whole duration.
        if (!t.startsWith('-') && !t.startsWith('+')) expect(toNanos(parseDuration('-' + t))).toBe(-ns);
      }),
    );
  });

  test('law: a day is exactly 24 hours and an hour 60 minutes', () => {
    fc.assert(
      fc.property(fc.nat({ max: 1_000_000 }), (n) => {
        expect(parseDuration(`P${n}D`)).toEqual(parseDuration(`PT${n * 24}H`));
        expect(parseDuration(`PT${n}H`)).toEqual(parseDuration(`PT${n * 60}M`));
      }),
    );
  });
});
