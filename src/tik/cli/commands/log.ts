import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/** `tik log <id> [--json]`: the events in fold order and the stages each one derived. */
export function registerLog(verb: Command, ctx: CliContext): void {
  verb
    .argument('<ticket>', 'ticket id or unique prefix')
    .option('--json', 'print the log as JSON (see docs/tik.md)')
    .action(async (prefix: string, opts: { json?: boolean }) => {
      const { renderLog } = await import('../render.js');
      const { printWarnings, serviceFor } = await import('../service.js');
      const r = await (await serviceFor(ctx)).log(prefix);
      printWarnings(ctx, r.warnings);
      if (opts.json) ctx.json(r.value.json);
      else ctx.out(renderLog(r.value.json, r.value.open));
    });
}
