import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffMs } from '../../../src/tik/effects/index.js';

describe('retry backoff', () => {
  it('doubles from the base per attempt', () => {
    const b = { baseMs: 1000, maxMs: 300_000 };
    expect([1, 2, 3, 4].map((a) => backoffMs(b, a))).toEqual([1000, 2000, 4000, 8000]);
    expect(backoffMs(b, 100)).toBe(300_000);
  });

  it('law: starts at the base, never decreases, never exceeds the cap, stays a whole number', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60_000 }), fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 1, max: 10_000 }), (baseMs, extra, attempt) => {
        const b = { baseMs, maxMs: baseMs + extra };
        const d = backoffMs(b, attempt);
        expect(backoffMs(b, 1)).toBe(baseMs);
        expect(d).toBeGreaterThanOrEqual(baseMs);
        expect(d).toBeLessThanOrEqual(b.maxMs);
        expect(backoffMs(b, attempt + 1)).toBeGreaterThanOrEqual(d);
        expect(Number.isSafeInteger(d)).toBe(true);
      }),
    );
  });
});
