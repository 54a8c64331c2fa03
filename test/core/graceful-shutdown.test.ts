import { afterEach, describe, expect, it, vi } from 'vitest';
import { onShutdownSignals, secondsToMs } from '../../src/core/graceful-shutdown.js';

describe('graceful shutdown sequence', () => {
  afterEach(() => vi.useRealTimers());

  const harness = (drainMs: number, graceMs: number, close: () => Promise<void>) => {
    const steps: string[] = [];
    const exits: number[] = [];
    const h = onShutdownSignals({ drainMs, graceMs, drain: () => steps.push('drain'), close: async () => { steps.push('close'); await close(); }, log: () => undefined, exit: (c) => exits.push(c) });
    return { h, steps, exits };
  };

  it('drains at once, closes only after the drain delay, and exits 0 when the close finishes', async () => {
    vi.useFakeTimers();
    const { h, steps, exits } = harness(3000, 30_000, async () => undefined);
    h.trigger();
    expect(steps).toEqual(['drain']);
    await vi.advanceTimersByTimeAsync(2999);
    expect(steps).toEqual(['drain']);
    await vi.advanceTimersByTimeAsync(1);
    expect(steps).toEqual(['drain', 'close']);
    expect(exits).toEqual([0]);
    h.uninstall();
  });

  it('exits 1 when the close overruns the grace', async () => {
    vi.useFakeTimers();
    const { h, exits } = harness(1000, 5000, () => new Promise<void>(() => undefined));
    h.trigger();
    await vi.advanceTimersByTimeAsync(4999);
    expect(exits).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(exits).toEqual([1]);
    h.uninstall();
  });

  it('exits 1 at once on a second signal', async () => {
    vi.useFakeTimers();
    const { h, steps, exits } = harness(60_000, 120_000, async () => undefined);
    h.trigger();
    h.trigger();
    expect(steps).toEqual(['drain']);
    expect(exits).toEqual([1]);
    h.uninstall();
  });

  it('reads seconds options, refusing what is not a bounded number', () => {
    expect(secondsToMs('2.5', 3600)).toBe(2500);
    expect(secondsToMs('0', 3600)).toBe(0);
    for (const bad of ['', ' ', '-1', 'abc', '3601', 'Infinity']) expect(secondsToMs(bad, 3600)).toBeUndefined();
  });
});
