import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { periodStart } from '../../../src/tik/app/recur-period.js';
import { CADENCES, parseCadence, periodLabel, type Cadence } from '../../../src/tik/recur/period-label.js';

const DAY = 86_400_000;
const MAX_LEN: Record<Cadence, number> = { daily: DAY, weekly: 7 * DAY, monthly: 31 * DAY, quarterly: 92 * DAY, yearly: 366 * DAY };
const instant = fc.integer({ min: Date.UTC(1971, 0, 1), max: Date.UTC(9998, 11, 31) });

describe('periodLabel', () => {
  it('labels the period that contains the instant: its start is at or before it, and the label starts exactly there (law)', () => {
    fc.assert(
      fc.property(instant, fc.constantFrom(...CADENCES), (t, c) => {
        const label = periodLabel(c, t);
        const start = periodStart(label)!;
        expect(start).toBeLessThanOrEqual(t);
        expect(t - start).toBeLessThan(MAX_LEN[c]);
        expect(periodLabel(c, start)).toBe(label);
        expect(periodLabel(c, start - 1)).not.toBe(label);
      }),
    );
  });

  it('uses ISO weeks with the week-based year, and the recur label shapes', () => {
    expect(periodLabel('weekly', Date.parse('2026-07-13T00:00:00Z'))).toBe('2026-W29');
    expect(periodLabel('weekly', Date.parse('2026-07-19T23:59:59.999Z'))).toBe('2026-W29');
    expect(periodLabel('weekly', Date.parse('2021-01-03T12:00:00Z'))).toBe('2020-W53');
    expect(periodLabel('weekly', Date.parse('2024-12-30T00:00:00Z'))).toBe('2025-W01');
    expect(periodLabel('daily', Date.parse('2026-02-03T23:00:00Z'))).toBe('2026-02-03');
    expect(periodLabel('monthly', Date.parse('2026-02-03T23:00:00Z'))).toBe('2026-02');
    expect(periodLabel('quarterly', Date.parse('2026-09-30T23:59:59Z'))).toBe('2026-Q3');
    expect(periodLabel('quarterly', Date.parse('2026-10-01T00:00:00Z'))).toBe('2026-Q4');
    expect(periodLabel('yearly', Date.parse('2026-12-31T23:59:59Z'))).toBe('2026');
  });

  it('refuses unknown cadences and instants outside four-digit years with coded errors', () => {
    expect(parseCadence(':weekly', 'x')).toBe('weekly');
    expect(() => parseCadence('fortnightly', 'recurrences.edn entry 0')).toThrow(expect.objectContaining({ code: 'recur/bad-cadence', where: 'recurrences.edn entry 0' }));
    expect(() => periodLabel('daily', Date.UTC(10000, 0, 1))).toThrow(expect.objectContaining({ code: 'recur/bad-instant' }));
    expect(() => periodLabel('daily', NaN)).toThrow(expect.objectContaining({ code: 'recur/bad-instant' }));
  });
});
