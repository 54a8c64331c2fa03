import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/**
 * `tik explain <id> [--actor A] [--at INST] [--json]`: for each frontier stage, what holds, what
 * is missing and what it blocks. `--actor` keeps only what that actor can act on.
 */
export function registerExplain(verb: Command, ctx: CliContext): void {
  verb
    .argument('<ticket>', 'ticket id or unique prefix')
    .option('--at <instant>', 'derive at this instant instead of now')
    .option('--json', 'print the explanation as JSON (see docs/tik.md)')
    .action(async (prefix: string, opts: { at?: string; json?: boolean }) => {
      const { readNow } = await import('../read-now.js');
      const { renderExplain } = await import('../render.js');
      const { printWarnings, serviceFor } = await import('../service.js');
      const at = readNow(ctx, opts.at);
      const forActor = ctx.actorFilter();
      const r = await (await serviceFor(ctx)).explain(prefix, { at, ...(forActor !== undefined ? { forActor } : {}) });
      printWarnings(ctx, r.warnings);
      if (opts.json) ctx.json(r.value.json);
      else ctx.out(renderExplain(r.value.result, r.value.open.roles, forActor, r.value.def));
    });
}
