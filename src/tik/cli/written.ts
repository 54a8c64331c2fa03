import type { Written } from '../app/tik-service.js';
import type { CliContext } from './context.js';

/** What every write verb prints: the ids it wrote (JSON: `{ticket, events: [{id, type, at}]}`). */
export function printWritten(ctx: CliContext, written: Written, json: boolean | undefined): void {
  if (json) {
    ctx.json(written);
    return;
  }
  for (const e of written.events) ctx.out(`${e.id} ${e.type} ${e.at}`);
}
