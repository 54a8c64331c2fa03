import type { TikEvent } from '../kernel/index.js';
import type { CliContext } from './context.js';
import { instantText } from './json-value.js';

/** What every write verb prints: the ids it wrote (JSON: `{ticket, events: [{id, type, at}]}`). */
export function printWritten(ctx: CliContext, ticket: string, events: readonly TikEvent[], json: boolean | undefined): void {
  if (json) {
    ctx.json({ ticket, events: events.map((e) => ({ id: e.id, type: e.type.toString(), at: instantText(e.at) })) });
    return;
  }
  for (const e of events) ctx.out(`${e.id} ${e.type.toString()} ${instantText(e.at)}`);
}
