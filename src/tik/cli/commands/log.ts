import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { logJson } from '../lenses.js';
import { readNow } from '../read-now.js';
import { renderLog } from '../render.js';
import { openStore, openTicket } from '../store-access.js';

/** `tik log <id> [--json]`: the events in fold order and the stages each one derived. */
export function registerLog(program: Command, ctx: CliContext): void {
  program
    .command('log')
    .description('the events in order (at, id), with the stages each one newly derived')
    .argument('<ticket>', 'ticket id or unique prefix')
    .option('--json', 'print the log as JSON (see docs/tik.md)')
    .action(async (prefix: string, opts: { json?: boolean }) => {
      const now = readNow(ctx, undefined);
      const store = await openStore(ctx);
      const t = await openTicket(ctx, store, prefix);
      const entries = logJson(t, now);
      if (opts.json) ctx.json(entries);
      else ctx.out(renderLog(entries, t));
    });
}
