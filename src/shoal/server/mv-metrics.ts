/**
 * The materialized-view series of `/metrics`, fed by one instance's MV service (each instance
 * reports its own refreshes; sum over the fleet in Prometheus):
 *
 * - `shoal_mv_refresh_total{mv, outcome}`: refresh attempts by outcome (`refreshed`, `skipped`,
 *   `lost_lease`, `failed`, or `error` when the attempt threw, e.g. the catalog was unreachable);
 * - `shoal_mv_refresh_seconds_total{mv, outcome}`: wall time those attempts took on this instance
 *   (divide by the count for the mean), and `shoal_mv_refresh_last_seconds{mv}`, the last one's;
 * - `shoal_mv_refresh_running{mv}`: 1 while a refresh of the MV runs here, else 0;
 * - `shoal_mv_not_quiescent_total{mv}`: a distributed MV's inputs changed during every
 *   materialization of one refresh (the source is not quiescent; the previous copy is served);
 * - `shoal_mv_snapshot_quarantined_total{mv}`: published snapshots found unreadable here, moved
 *   aside and rebuilt (readers were served live meanwhile).
 */
import type { MvEvent } from '../mv/mv-events.js';
import type { MvService } from '../mv/mv-service.js';
import type { MetricsRegistry } from './metrics.js';

export const MV_METRICS = {
  refreshes: 'shoal_mv_refresh_total',
  refreshSeconds: 'shoal_mv_refresh_seconds_total',
  lastSeconds: 'shoal_mv_refresh_last_seconds',
  running: 'shoal_mv_refresh_running',
  notQuiescent: 'shoal_mv_not_quiescent_total',
  quarantined: 'shoal_mv_snapshot_quarantined_total',
} as const;

/** Report an MV service's events into a metrics registry; returns the function that stops it. */
export function reportMvMetrics(mvs: Pick<MvService, 'observe' | 'list'>, metrics: MetricsRegistry): () => void {
  metrics.declare(MV_METRICS.refreshes, 'MV refresh attempts on this instance, by MV and outcome');
  metrics.declare(MV_METRICS.refreshSeconds, 'seconds spent in MV refresh attempts on this instance, by MV and outcome');
  metrics.declare(MV_METRICS.lastSeconds, 'duration of the last MV refresh attempt on this instance', 'gauge');
  metrics.declare(MV_METRICS.running, '1 while a refresh of the MV runs on this instance', 'gauge');
  metrics.declare(MV_METRICS.notQuiescent, "times a distributed MV's source changed during every materialization of a refresh");
  metrics.declare(MV_METRICS.quarantined, 'published MV snapshots found unreadable on this instance (quarantined, served live, rebuilt)');
  // distributed MVs known now are exported at 0, so an alert can watch the series from the start
  for (const mv of mvs.list()) if (mv.table.mv_consistency === 'distributed') metrics.inc(MV_METRICS.notQuiescent, { mv: mv.id }, 0);
  const running = new Map<string, number>(); // overlapping attempts (admin API and loop at once)
  const run = (mv: string, by: number): void => {
    const n = Math.max(0, (running.get(mv) ?? 0) + by);
    running.set(mv, n);
    metrics.set(MV_METRICS.running, n > 0 ? 1 : 0, { mv });
  };
  return mvs.observe((e: MvEvent) => {
    switch (e.kind) {
      case 'refresh_started':
        run(e.mvId, 1);
        break;
      case 'refresh_finished': {
        const labels = { mv: e.mvId, outcome: e.outcome };
        metrics.inc(MV_METRICS.refreshes, labels);
        metrics.inc(MV_METRICS.refreshSeconds, labels, e.durationMs / 1000);
        metrics.set(MV_METRICS.lastSeconds, e.durationMs / 1000, { mv: e.mvId });
        run(e.mvId, -1);
        break;
      }
      case 'not_quiescent':
        metrics.inc(MV_METRICS.notQuiescent, { mv: e.mvId });
        break;
      case 'snapshot_quarantined':
        metrics.inc(MV_METRICS.quarantined, { mv: e.mvId });
        break;
    }
  });
}
