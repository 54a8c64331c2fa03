/**
 * How long the event loop was held, for `/metrics`: `shoal_event_loop_lag_seconds` with
 * `quantile="1"` (the longest delay) and `quantile="0.99"`, over the last completed window and the
 * current one (10 s each), sampled by Node's perf_hooks.monitorEventLoopDelay. A value near the
 * request latency means something ran synchronously for that long: every other request, `/live`
 * included, waited for it.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { MetricsRegistry } from './metrics.js';

export const EVENT_LOOP_LAG = 'shoal_event_loop_lag_seconds';
const HELP = 'event-loop delay over the last 10 to 20 s (quantile 1 is the longest): how long a request such as /live could have waited';

/** Start sampling into `metrics` (updated whenever it is rendered); returns the stop function. */
export function monitorEventLoopLag(metrics: MetricsRegistry, windowMs = 10_000): () => void {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let previous = { max: 0, p99: 0 };
  const seconds = (ns: number): number => (Number.isFinite(ns) ? ns / 1e9 : 0);
  const window = setInterval(() => {
    previous = { max: seconds(histogram.max), p99: seconds(histogram.percentile(99)) };
    histogram.reset();
  }, windowMs);
  window.unref();
  const update = (): void => {
    const sampled = histogram.count > 0;
    metrics.set(EVENT_LOOP_LAG, Math.max(previous.max, sampled ? seconds(histogram.max) : 0), { quantile: '1' }, HELP);
    metrics.set(EVENT_LOOP_LAG, Math.max(previous.p99, sampled ? seconds(histogram.percentile(99)) : 0), { quantile: '0.99' }, HELP);
  };
  update();
  const stopCollecting = metrics.beforeRender(update);
  return () => {
    clearInterval(window);
    histogram.disable();
    stopCollecting();
  };
}
