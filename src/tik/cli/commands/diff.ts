import type { Command } from 'commander';
import { TikError } from '../../errors.js';
import type { CliContext } from '../context.js';
import { diffJson } from '../lenses.js';
import { readNow } from '../read-now.js';
import { renderDiff } from '../render.js';
import { openStore, openTicket } from '../store-access.js';

/** `tik diff <id> [k] [--json]`: what the last k events (default 1) changed. */
export function registerDiff(program: Command, ctx: CliContext): void {
  program
    .command('diff')
    .description('stages gained and lost and facts changed by the last k events (default 1)')
    .argument('<ticket>', 'ticket id or unique prefix')
    .argument('[k]', 'how many of the latest events', '1')
    .option('--json', 'print the diff as JSON (see docs/tik.md)')
    .action(async (prefix: string, kText: string, opts: { json?: boolean }) => {
      if (!/^\d+$/.test(kText) || Number(kText) < 1) {
        throw new TikError('cli/usage', `k must be a positive integer, got "${kText}"`, { where: 'k', hint: 'e.g. tik diff <id> 3' });
      }
      const now = readNow(ctx, undefined);
      const store = await openStore(ctx);
      const t = await openTicket(ctx, store, prefix);
      const d = diffJson(t, now, Number(kText));
      if (opts.json) ctx.json(d);
      else ctx.out(renderDiff(d));
    });
}
