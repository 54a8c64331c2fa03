import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Instant } from '../../../src/tik/edn/value.js';
import { WriterClock } from '../../../src/tik/app/writer-clock.js';

describe('the writer clock (§2.5)', () => {
  it('is strictly increasing within a run, whatever the base clock does (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 2_000_000_000_000 }), { minLength: 1, maxLength: 50 }), (ticks) => {
        let i = 0;
        const clock = new WriterClock(() => ticks[Math.min(i++, ticks.length - 1)]!);
        let last = -Infinity;
        for (let k = 0; k < ticks.length; k++) {
          const at = clock.next().ms;
          expect(at).toBeGreaterThan(last);
          last = at;
        }
      }),
    );
  });

  it('adds 1 ms when the clock has not moved, and never dates an event at or before its parents (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e12 }), fc.integer({ min: 0, max: 1e12 }), (base, floor) => {
        const clock = new WriterClock(() => base);
        const a = clock.next(new Instant(floor)).ms;
        expect(a).toBe(Math.max(base, floor + 1));
        expect(clock.next().ms).toBe(a + 1);
      }),
    );
  });

  it('TIK_NOW fixes the base clock; reads see it unchanged', () => {
    const clock = WriterClock.fromEnv({ TIK_NOW: '2026-01-01T00:00:00Z' }, () => 5);
    expect(clock.now().ms).toBe(Date.UTC(2026, 0, 1));
    expect(clock.next().ms).toBe(Date.UTC(2026, 0, 1));
    expect(clock.next().ms).toBe(Date.UTC(2026, 0, 1) + 1);
    expect(clock.now().ms).toBe(Date.UTC(2026, 0, 1));
    expect(WriterClock.fromEnv({}, () => 5).now().ms).toBe(5);
    expect(() => WriterClock.fromEnv({ TIK_NOW: 'tomorrow' }, () => 5)).toThrow(expect.objectContaining({ code: 'cli/bad-instant' }));
  });
});
