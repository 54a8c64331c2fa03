import type { Instant } from '../edn/value.js';
import type { CliContext } from './context.js';
import { parseInstantText } from '../app/instant-arg.js';
import { runClock } from './run-clock.js';

/** The instant a read derives at: `--at` if given, else the run's clock (`TIK_NOW` or the system clock). */
export function readNow(ctx: CliContext, at: string | undefined): Instant {
  return at !== undefined ? parseInstantText(at, '--at') : runClock(ctx).now();
}
