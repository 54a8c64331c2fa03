import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/**
 * `tik ls [--all] [--json]`: every open ticket with its current stages (settled ones with --all).
 * A ticket that cannot be read is named on stderr and left out; the run then exits 1.
 */
export function registerLs(program: Command, ctx: CliContext): void {
  program
    .command('ls')
    .description('list tickets and their current stages (settled tickets only with --all)')
    .option('--all', 'include settled tickets')
    .option('--json', 'print the list as JSON (see docs/tik.md)')
    .action(async (opts: { all?: boolean; json?: boolean }) => {
      const { renderLs } = await import('../render.js');
      const { printWarnings, serviceFor } = await import('../service.js');
      const r = await (await serviceFor(ctx)).ls({ all: opts.all === true });
      printWarnings(ctx, r.warnings);
      if (r.value.skipped.length > 0) ctx.fail(1);
      if (opts.json) ctx.json(r.value.rows);
      else ctx.out(renderLs(r.value.rows, r.value.hidden));
    });
}
