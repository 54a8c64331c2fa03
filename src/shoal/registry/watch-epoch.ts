/**
 * Watch the registry's config epoch (federation-fleet.md §5.2 [REC]): poll it every `intervalMs`
 * (default 2000) and call `onChange` when it moved; on PostgreSQL, a NOTIFY from any handle's
 * mutation triggers an immediate poll as well. Polls never overlap; a failed read or a failed
 * `onChange` is reported to `onError` and retried at the next poll (the epoch is only taken as seen
 * once `onChange` succeeded), so a reconcile that fails is not lost.
 */
import type { Registry } from './registry.js';
import { systemTimer, type Timer } from './timer.js';

export interface WatchEpochOptions {
  readonly intervalMs?: number;
  readonly timer?: Timer;
  /** The epoch the caller's state was built at; default: the epoch read when the watch starts. */
  readonly initialEpoch?: number;
  /** Use LISTEN/NOTIFY when the registry offers it (default true). */
  readonly listen?: boolean;
  readonly onError?: (e: unknown) => void;
}

export interface EpochWatch {
  /** The last epoch `onChange` completed for (or the initial epoch). */
  readonly seen: number;
  /** Poll now (coalesced with a poll in flight); resolves when that poll and its onChange are done. */
  poll(): Promise<void>;
  /** Resolves when no poll is in flight. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export type EpochChange = (epoch: number, previous: number) => void | Promise<void>;

export async function watchEpoch(
  registry: Pick<Registry, 'epoch' | 'subscribe'>,
  options: WatchEpochOptions,
  onChange: EpochChange,
): Promise<EpochWatch> {
  const intervalMs = options.intervalMs ?? 2000;
  const timer = options.timer ?? systemTimer;
  const onError = options.onError ?? (() => undefined);
  let seen = options.initialEpoch ?? (await registry.epoch());
  let stopped = false;
  let handle: unknown;
  let inFlight: Promise<void> | undefined;
  let again = false;

  const once = async (): Promise<void> => {
    try {
      const epoch = await registry.epoch();
      if (epoch !== seen && !stopped) {
        const previous = seen;
        await onChange(epoch, previous);
        seen = epoch;
      }
    } catch (e) {
      onError(e);
    }
  };

  const poll = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (inFlight) {
      again = true;
      return inFlight;
    }
    inFlight = (async () => {
      do {
        again = false;
        await once();
      } while (again && !stopped);
    })().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };

  const schedule = () => {
    if (stopped) return;
    handle = timer.setTimeout(() => {
      void poll().then(schedule);
    }, intervalMs);
  };

  let unsubscribe: (() => Promise<void>) | undefined;
  if (options.listen !== false && registry.subscribe) {
    try {
      unsubscribe = await registry.subscribe(() => void poll());
    } catch (e) {
      onError(e); // polling still covers it
    }
  }
  schedule();

  return {
    get seen() {
      return seen;
    },
    poll,
    idle: async () => {
      while (inFlight) await inFlight;
    },
    stop: async () => {
      stopped = true;
      timer.clearTimeout(handle);
      await unsubscribe?.();
      while (inFlight) await inFlight;
    },
  };
}
