import { Instant } from '../edn/value.js';
import { TikError } from '../errors.js';
import { parseInstantText } from './instant-arg.js';

/**
 * The porcelain writer clock (tik-model.md §2.5). Within one run of the command every minted
 * instant is strictly greater than the previous one (+1 ms when the clock has not moved), so a
 * retract can never sort before the assert it observed. It is also never earlier than
 * `floor` — the latest `:at` among the parents the event names — for the same reason across runs.
 *
 * The base clock is the system clock unless `TIK_NOW` holds an instant (`2026-01-01T00:00:00Z`):
 * then every run starts from that fixed instant, which makes test output deterministic.
 */
export class WriterClock {
  private last = Number.NEGATIVE_INFINITY;

  constructor(private readonly base: () => number) {}

  /** Build from the environment: `TIK_NOW` fixes the base clock. */
  static fromEnv(env: Readonly<Record<string, string | undefined>>, systemClock: () => number): WriterClock {
    const fixed = env.TIK_NOW;
    if (fixed !== undefined && fixed !== '') {
      const ms = parseInstantText(fixed, 'TIK_NOW').ms;
      return new WriterClock(() => ms);
    }
    return new WriterClock(systemClock);
  }

  /** The instant reads derive at (does not advance the writer clock). */
  now(): Instant {
    return new Instant(this.base());
  }

  /** The `:at` for the next event this run writes: strictly increasing, and after `floor`. */
  next(floor?: Instant): Instant {
    let ms = Math.max(this.base(), this.last + 1);
    if (floor !== undefined && ms <= floor.ms) ms = floor.ms + 1;
    if (!Number.isSafeInteger(ms)) throw new TikError('cli/clock', `the writer clock produced an invalid instant (${ms})`);
    this.last = ms;
    return new Instant(ms);
  }
}
