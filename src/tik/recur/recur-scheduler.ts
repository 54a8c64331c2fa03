import { recurTicketId } from '../app/recur-period.js';
import { periodLabel } from './period-label.js';
import type { Recurrence } from './recurrence.js';

/** What firing one recurrence for one period did. */
export interface FireOutcome {
  readonly ok: boolean;
  /** The ticket was opened now (false: it already existed, or the run failed). */
  readonly created: boolean;
  readonly message?: string;
}

export interface RecurSchedulerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface RecurSchedulerOptions {
  readonly recurrences: readonly Recurrence[];
  /** The wall clock in epoch ms (injectable: tests and `TIK_NOW` fix it). */
  readonly clock: () => number;
  /** Runs `tik recur <process> --period <label>` (a no-op when the period's ticket exists). */
  readonly fire: (r: Recurrence, label: string) => Promise<FireOutcome>;
  /** Whether this replica holds the ticket (sharding); a period whose ticket it does not own is left to its shard. */
  readonly owns?: (ticket: string) => boolean;
  readonly log: RecurSchedulerLog;
}

/**
 * The recurrence scheduler of `tik serve` (which calls `tick` periodically). On every tick it reads the clock, labels the current
 * period of each configured recurrence, and fires `tik recur` for it once (per process lifetime;
 * a failure is retried next tick). Every replica runs it; the ticket id and every byte of the
 * events are functions of (process, label, actor, definition), so replicas firing the same
 * period mint identical events and sync keeps one copy (T5). No lease, no leader.
 */
export class RecurScheduler {
  private readonly fired = new Set<string>();

  constructor(private readonly o: RecurSchedulerOptions) {}

  /** One pass: fires every recurrence whose current period has not been fired yet. Returns what it fired. */
  async tick(): Promise<{ process: string; label: string; outcome: FireOutcome }[]> {
    const now = this.o.clock();
    const out: { process: string; label: string; outcome: FireOutcome }[] = [];
    for (const r of this.o.recurrences) {
      let label: string;
      try {
        label = periodLabel(r.cadence, now);
      } catch (e) {
        this.o.log.warn({ process: r.process, error: (e as Error).message }, 'recur: cannot label the period');
        continue;
      }
      const key = `${r.process}\u0000${label}`;
      if (this.fired.has(key)) continue;
      if (this.o.owns && !this.o.owns(recurTicketId(r.process, label))) {
        this.fired.add(key); // another shard's ticket: its replicas fire it
        continue;
      }
      const outcome = await this.o.fire(r, label);
      out.push({ process: r.process, label, outcome });
      if (outcome.ok) {
        this.fired.add(key);
        if (outcome.created) this.o.log.info({ process: r.process, period: label }, 'recur: opened the period’s ticket');
      } else this.o.log.warn({ process: r.process, period: label, error: outcome.message }, 'recur: failed; retrying next tick');
    }
    return out;
  }

}
