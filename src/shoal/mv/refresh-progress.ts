/**
 * Where a running refresh is: reading its input versions, claiming the lease (shared), streaming
 * the view's rows (`rowsWritten` grows), writing the Parquet snapshot, checking that the inputs did
 * not move (distributed), or publishing it by the fenced commit (shared).
 */
export type RefreshPhase = 'versions' | 'claiming' | 'materializing' | 'writing_snapshot' | 'checking_inputs' | 'committing';

/** A refresh running on this instance (the admin API shows progress and timing). */
export interface RunningRefresh {
  readonly mvId: string;
  readonly consistency: 'shared' | 'distributed';
  /** This instance's writer, with `#<lease epoch>` once a shared refresh holds the lease. */
  readonly writer: string;
  readonly phase: RefreshPhase;
  /** Materialization attempt (a distributed MV retries when its inputs moved), from 1. */
  readonly attempt: number;
  readonly startedAtMs: number;
  readonly elapsedMs: number;
  readonly rowsWritten: number;
  readonly snapshotId: string | null;
}

/** A running refresh's mutable progress record (only `running()` reads it, as a copy). */
export interface RefreshProgress {
  readonly consistency: 'shared' | 'distributed';
  phase: RefreshPhase;
  attempt: number;
  readonly startedAtMs: number;
  rows: number;
  snapshotId: string | null;
  writer: string;
}

/** What the admin API shows of a refresh in progress, at `nowMs`. */
export function runningRefresh(mvId: string, p: RefreshProgress, nowMs: number): RunningRefresh {
  return {
    mvId,
    consistency: p.consistency,
    writer: p.writer,
    phase: p.phase,
    attempt: p.attempt,
    startedAtMs: p.startedAtMs,
    elapsedMs: nowMs - p.startedAtMs,
    rowsWritten: p.rows,
    snapshotId: p.snapshotId,
  };
}
