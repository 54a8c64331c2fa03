import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/**
 * `tik next [--actor A] [--role R] [--all] [--json]`: the inbox — actions across tickets, ranked by
 * how many stages they unlock, then by staleness (§7.2). A ticket that cannot be read is named on
 * stderr and in `skipped`, and left out; the run then exits 1.
 */
export function registerNext(verb: Command, ctx: CliContext): void {
  verb
    .option('--role <role>', 'keep actions gated by this role')
    .option('--all', 'include settled tickets')
    .option('--json', 'print the inbox as JSON (see docs/tik.md)')
    .action(async (opts: { role?: string; all?: boolean; json?: boolean }) => {
      const { renderNext } = await import('../render.js');
      const { printWarnings, serviceFor } = await import('../service.js');
      const actor = ctx.actorFilter();
      const r = await (await serviceFor(ctx)).next({ ...(actor !== undefined ? { actor } : {}), ...(opts.role !== undefined ? { role: opts.role } : {}), all: opts.all === true });
      printWarnings(ctx, r.warnings);
      if (r.value.skipped.length > 0) ctx.fail(1);
      if (opts.json) ctx.json(r.value.json);
      else ctx.out(renderNext(r.value.result, r.value.heldBack));
    });
}
