import { isCodedError } from '../../core/errors.js';
import type { TikService } from '../app/tik-service.js';
import { RecurScheduler, type RecurSchedulerLog } from '../recur/recur-scheduler.js';
import type { Recurrence } from '../recur/recurrence.js';
import { PeriodicLoop } from './periodic-loop.js';

export interface RecurOptions {
  readonly recurrences: readonly Recurrence[];
  /** Seconds between scheduler ticks. Default 60. */
  readonly intervalSeconds?: number;
  /** The scheduler's clock (epoch ms); default the replica's clock (`TIK_NOW` if set). */
  readonly clock?: () => number;
}

/** The scheduler of a replica and the loop that ticks it; each due period is a `recur` through the service. */
export function recurRunner(svc: TikService, o: RecurOptions, owns: ((ticket: string) => boolean) | undefined, log: RecurSchedulerLog): { scheduler: RecurScheduler; loop: PeriodicLoop } {
  const scheduler = new RecurScheduler({
    recurrences: o.recurrences,
    clock: o.clock ?? (() => svc.clock.now().ms),
    fire: async (r, label) => {
      try {
        const res = await svc.recur({ actor: r.actor, process: r.process, period: label, title: r.title });
        return { ok: true, created: res.value.created };
      } catch (e) {
        if (!isCodedError(e)) throw e;
        return { ok: false, created: false, message: e.message };
      }
    },
    ...(owns ? { owns } : {}),
    log,
  });
  return { scheduler, loop: new PeriodicLoop(() => scheduler.tick(), (o.intervalSeconds ?? 60) * 1000) };
}
