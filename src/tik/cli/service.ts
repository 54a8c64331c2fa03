import { TikService } from '../app/tik-service.js';
import type { CliContext } from './context.js';
import { runClock } from './run-clock.js';
import { envSigningKey } from './signing-key.js';
import { openStore } from './store-access.js';

const services = new WeakMap<CliContext, Promise<TikService>>();

/**
 * The application service of this run: built once from the run's store, writer clock, `TIK_KEY`
 * (which signs only this run's own actor's events) and id minting. The key is read before
 * anything is written, so a bad key writes nothing.
 */
export function serviceFor(ctx: CliContext, options: { write?: boolean } = {}): Promise<TikService> {
  let s = services.get(ctx);
  if (!s) {
    s = (async () => {
      const key = options.write ? envSigningKey(ctx) : undefined;
      const store = await openStore(ctx);
      return new TikService({ store, clock: runClock(ctx), mintId: () => ctx.io.randomUuid(), derivedIndex: ctx.io.env.TIK_INDEX !== 'off', ...(key ? { signer: { actor: ctx.actor(), key } } : {}) });
    })();
    services.set(ctx, s);
  }
  return s;
}

/** Print an operation's warnings on stderr (`tik: …`). */
export function printWarnings(ctx: CliContext, warnings: readonly string[]): void {
  for (const w of warnings) ctx.warn(w);
}
