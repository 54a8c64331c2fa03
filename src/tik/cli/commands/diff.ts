import type { Command } from 'commander';
import { TikError } from '../../errors.js';
import type { CliContext } from '../context.js';

/** `tik diff <id> [k] [--json]`: what the last k events (default 1) changed. */
export function registerDiff(verb: Command, ctx: CliContext): void {
  verb
    .argument('<ticket>', 'ticket id or unique prefix')
    .argument('[k]', 'how many of the latest events', '1')
    .option('--json', 'print the diff as JSON (see docs/tik.md)')
    .action(async (prefix: string, kText: string, opts: { json?: boolean }) => {
      const { renderDiff } = await import('../render.js');
      const { printWarnings, serviceFor } = await import('../service.js');
      if (!/^\d+$/.test(kText) || Number(kText) < 1) {
        throw new TikError('cli/usage', `k must be a positive integer, got "${kText}"`, { where: 'k', hint: 'e.g. tik diff <id> 3' });
      }
      const r = await (await serviceFor(ctx)).diff(prefix, Number(kText));
      printWarnings(ctx, r.warnings);
      if (opts.json) ctx.json(r.value.json);
      else ctx.out(renderDiff(r.value.json));
    });
}
