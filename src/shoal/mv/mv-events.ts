import type { RefreshResult } from './refresh-under-lease.js';

/**
 * What the service tells observers (the /metrics series): each refresh attempt's outcome and
 * wall time on this instance, and each time a distributed MV's source was not quiescent.
 */
export type MvEvent =
  | { readonly kind: 'refresh_started'; readonly mvId: string }
  | {
      readonly kind: 'refresh_finished';
      readonly mvId: string;
      readonly consistency: 'shared' | 'distributed';
      /** The result's outcome, or `error` when the refresh threw (catalog unreachable, …). */
      readonly outcome: RefreshResult['outcome'] | 'error';
      readonly durationMs: number;
    }
  | { readonly kind: 'not_quiescent'; readonly mvId: string }
  /** A published snapshot failed to read: moved aside, served live, rebuilt. */
  | { readonly kind: 'snapshot_quarantined'; readonly mvId: string; readonly snapshotId: string };

/** The observers of one service's MV events. */
export class MvObservers {
  private readonly listeners = new Set<(e: MvEvent) => void>();

  /** Follow events (returns the unsubscribe). */
  observe(listener: (e: MvEvent) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  emit(e: MvEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // an observer's failure (metrics) never fails a refresh
      }
    }
  }
}
