import { WriterClock } from '../cli/writer-clock.js';
import { RecurScheduler, type RecurSchedulerLog } from '../recur/recur-scheduler.js';
import type { Recurrence } from '../recur/recurrence.js';
import { PeriodicLoop } from './periodic-loop.js';
import { runVerb, verbError, type VerbEnv } from './run-verb.js';

export interface RecurOptions {
  readonly recurrences: readonly Recurrence[];
  /** Seconds between scheduler ticks. Default 60. */
  readonly intervalSeconds?: number;
  /** The scheduler's clock (epoch ms); default `TIK_NOW` if set, else the system clock. */
  readonly clock?: () => number;
}

/** The scheduler of a replica and the loop that ticks it; `tik recur` runs in process against the replica's store. */
export function recurRunner(v: VerbEnv, o: RecurOptions, owns: ((ticket: string) => boolean) | undefined, log: RecurSchedulerLog): { scheduler: RecurScheduler; loop: PeriodicLoop } {
  const scheduler = new RecurScheduler({
    recurrences: o.recurrences,
    clock: o.clock ?? (() => WriterClock.fromEnv(v.env, v.clock ?? (() => Date.now())).now().ms),
    fire: async (r, label) => {
      const res = await runVerb(v, r.actor, ['recur', r.process, '--period', label, ...(r.title !== undefined ? ['--title', r.title] : []), '--json']);
      if (res.code !== 0) return { ok: false, created: false, message: verbError(res).body.error.message };
      return { ok: true, created: (JSON.parse(res.stdout) as { created: boolean }).created };
    },
    ...(owns ? { owns } : {}),
    log,
  });
  return { scheduler, loop: new PeriodicLoop(() => scheduler.tick(), (o.intervalSeconds ?? 60) * 1000) };
}
