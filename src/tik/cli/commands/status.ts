import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { statusView } from '../lenses.js';
import { readNow } from '../read-now.js';
import { renderStatus } from '../render.js';
import { openStore, openTicket } from '../store-access.js';

/** `tik status <id> [--at INST] [--json]`: what stage, what facts, what is missing and who can supply it. */
export function registerStatus(program: Command, ctx: CliContext): void {
  program
    .command('status')
    .description('the derived stage, facts and what is missing (derived on read, never stored)')
    .argument('<ticket>', 'ticket id or unique prefix')
    .option('--at <instant>', 'derive at this instant instead of now (later events are clamped, not excluded)')
    .option('--json', 'print the status as JSON (see docs/tik.md)')
    .action(async (prefix: string, opts: { at?: string; json?: boolean }) => {
      const now = readNow(ctx, opts.at);
      const store = await openStore(ctx);
      const t = await openTicket(ctx, store, prefix);
      const view = statusView(t, now);
      if (opts.json) ctx.json(view.json);
      else ctx.out(renderStatus(view, t));
    });
}
