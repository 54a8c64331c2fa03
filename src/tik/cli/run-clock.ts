import { WriterClock } from '../app/writer-clock.js';
import type { CliContext } from './context.js';

const clocks = new WeakMap<CliContext, WriterClock>();

/**
 * The writer clock of this run (§2.5); `TIK_NOW` fixes its base. Apart from the context so that
 * start-up does not load the EDN reader that parses `TIK_NOW`: the verbs that mint or read
 * instants import it.
 */
export function runClock(ctx: CliContext): WriterClock {
  let clock = clocks.get(ctx);
  if (!clock) {
    clock = WriterClock.fromEnv(ctx.io.env, ctx.io.clock);
    clocks.set(ctx, clock);
  }
  return clock;
}
