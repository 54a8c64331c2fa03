import type { RefreshResult } from './refresh-under-lease.js';

/** The last refresh of a distributed MV on this instance (it has no refresh log). */
export interface LocalRefreshReport {
  readonly outcome: RefreshResult['outcome'];
  readonly snapshotId: string | null;
  readonly rowCount: number | null;
  readonly error: string | null;
  readonly attempts: number;
  readonly startedAtMs: number;
  readonly durationMs: number;
}

/** An MV's last finished refresh attempt, as the admin API reports it. */
export interface LastRefresh {
  readonly outcome: string;
  readonly snapshotId: string | null;
  readonly rowCount: number | null;
  readonly error: string | null;
  readonly writer: string | null;
  readonly finishedAtMs: number;
  readonly durationMs: number | null;
  /** Distributed MVs: materializations it took (retries when the inputs moved). */
  readonly attempts?: number;
}
