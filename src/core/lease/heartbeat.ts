/**
 * A heartbeat that renews a held lease every `intervalMs` (default: a third of the lease) and aborts
 * `signal` as soon as a renew finds the lease lost. The interval is paced by an instance timer, which
 * is fine: only the fence, read on the database clock, decides who may publish. A renew that fails
 * with an error (database unreachable) is reported and retried on the next beat; if the outage
 * outlasts the lease, the next successful renew finds it lost and aborts, and the commit is refused.
 */
import { CodedError } from '../errors.js';
import type { FencedLease, LeaseGrant } from './fenced-lease.js';

/** Schedules `fn` after `ms`; returns a cancel function (injectable for tests). */
export type Schedule = (fn: () => void, ms: number) => () => void;

export const realSchedule: Schedule = (fn, ms) => {
  const t = setTimeout(fn, ms);
  t.unref?.();
  return () => clearTimeout(t);
};

export interface HeartbeatOptions {
  readonly intervalMs?: number;
  readonly schedule?: Schedule;
  /** Called when a renew throws (the beat continues). */
  readonly onError?: (e: unknown) => void;
}

export interface Heartbeat {
  /** Aborted (with a LEASE_LOST CodedError as reason) when the lease is found lost. */
  readonly signal: AbortSignal;
  /** The latest grant (its `untilMs` moves forward with each renew). */
  current(): LeaseGrant;
  /** Stop beating; waits for a renew in flight. Call before commit or release. */
  stop(): Promise<void>;
}

export function startHeartbeat(lease: FencedLease, grant: LeaseGrant, options: HeartbeatOptions = {}): Heartbeat {
  const interval = options.intervalMs ?? Math.max(1, Math.floor(lease.leaseMs / 3));
  const schedule = options.schedule ?? realSchedule;
  const controller = new AbortController();
  let latest = grant;
  let stopped = false;
  let inFlight: Promise<void> = Promise.resolve();
  let cancel: () => void = () => undefined;

  const beat = (): void => {
    inFlight = (async () => {
      try {
        const renewed = await lease.renew(latest);
        if (renewed) latest = renewed;
        else {
          controller.abort(
            new CodedError('LEASE_LOST', `the lease on ${grant.key} (epoch ${grant.epoch}) was lost before the work finished`, {
              hint: 'the work is discarded; another holder may be refreshing, or the lease expired during a pause',
            }),
          );
          stopped = true;
          return;
        }
      } catch (e) {
        options.onError?.(e);
      }
      if (!stopped) cancel = schedule(beat, interval);
    })();
  };
  cancel = schedule(beat, interval);

  return {
    signal: controller.signal,
    current: () => latest,
    async stop() {
      stopped = true;
      cancel();
      await inFlight;
    },
  };
}
