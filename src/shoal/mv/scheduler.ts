/**
 * The per-instance MV refresh loop (federation-fleet.md §1.10). EVERY instance runs it: each tick
 * asks for the MVs that look due and tries to refresh each one. The refresh catalog's claim decides
 * (one conditional UPDATE on the database clock, deduped on the definition and input versions), so
 * N instances yield one refresh per version, and a crashed writer's MV is picked up by whichever
 * instance ticks after its lease expires. Time is injected: `schedule` paces the ticks.
 */
import { realSchedule, type Schedule } from '../../core/lease/index.js';
import type { RefreshResult } from './refresh-under-lease.js';

/** What the loop drives (the instance's MV service). */
export interface ScheduledRefresher {
  /** MV ids worth a claim attempt now (a hint: the claim still decides). */
  candidates(): Promise<readonly string[]>;
  refresh(mvId: string): Promise<RefreshResult>;
  /** Housekeeping after each tick (snapshot GC). */
  afterTick?(): Promise<void>;
}

export interface MvSchedulerOptions {
  /** Milliseconds between ticks (default 5000). */
  readonly intervalMs?: number;
  readonly schedule?: Schedule;
  /** A failed tick or refresh (the loop carries on). */
  readonly onError?: (e: unknown) => void;
}

export interface TickReport {
  readonly attempted: readonly { readonly mvId: string; readonly result: RefreshResult }[];
  /** True when the tick did nothing because the previous one was still running. */
  readonly overlapped: boolean;
}

export class MvScheduler {
  private readonly intervalMs: number;
  private readonly schedule: Schedule;
  private cancel: (() => void) | undefined;
  private running: Promise<TickReport> | undefined;
  private stopped = true;

  constructor(
    private readonly target: ScheduledRefresher,
    private readonly options: MvSchedulerOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 5000;
    this.schedule = options.schedule ?? realSchedule;
  }

  /** Start ticking (the first tick runs after one interval). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.arm();
  }

  /** Stop ticking and wait for a tick in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel?.();
    this.cancel = undefined;
    await this.running?.catch(() => undefined);
  }

  /** Run one tick now: try every candidate in turn. Never overlaps a running tick. */
  async tick(): Promise<TickReport> {
    return this.tickFrom(false);
  }

  private async tickFrom(fromLoop: boolean): Promise<TickReport> {
    if (this.running) return { attempted: [], overlapped: true };
    const run = this.runTick(fromLoop);
    this.running = run;
    try {
      return await run;
    } finally {
      this.running = undefined;
    }
  }

  private async runTick(fromLoop: boolean): Promise<TickReport> {
    const attempted: { mvId: string; result: RefreshResult }[] = [];
    let ids: readonly string[] = [];
    try {
      ids = await this.target.candidates();
    } catch (e) {
      this.options.onError?.(e);
    }
    for (const mvId of ids) {
      // a stopping instance does not start another refresh from its loop
      if (fromLoop && this.stopped) break;
      try {
        attempted.push({ mvId, result: await this.target.refresh(mvId) });
      } catch (e) {
        this.options.onError?.(e);
      }
    }
    try {
      await this.target.afterTick?.();
    } catch (e) {
      this.options.onError?.(e);
    }
    return { attempted, overlapped: false };
  }

  private arm(): void {
    this.cancel = this.schedule(() => {
      void this.tickFrom(true).finally(() => {
        if (!this.stopped) this.arm();
      });
    }, this.intervalMs);
  }
}
