import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/**
 * `tik ls [--all] [--where SELECTOR] [--json]`: every open ticket with its current stages (settled
 * ones with --all), or those a selector matches (docs/tik.md "Selecting tickets"). A ticket that
 * cannot be read is named on stderr and left out; the run then exits 1.
 */
export function registerLs(verb: Command, ctx: CliContext): void {
  verb
    .option('--all', 'include settled tickets')
    .option('--where <selector>', "only tickets the selector matches, e.g. 'stage=:triaged and fact:severity=:high and not disputed'")
    .option('--json', 'print the list as JSON (see docs/tik.md)')
    .action(async (opts: { all?: boolean; where?: string; json?: boolean }) => {
      await listTickets(ctx, { all: opts.all === true, ...(opts.where !== undefined ? { where: opts.where } : {}), json: opts.json === true });
    });
}

/** `ls` and `search` share the listing: one selector grammar, one row shape. */
export async function listTickets(ctx: CliContext, opts: { all: boolean; where?: string; json: boolean }): Promise<void> {
  const { renderLs } = await import('../render.js');
  const { printWarnings, serviceFor } = await import('../service.js');
  const r = await (await serviceFor(ctx)).ls(opts);
  printWarnings(ctx, r.warnings);
  if (r.value.skipped.length > 0) ctx.fail(1);
  if (opts.json) ctx.json(r.value.rows);
  else ctx.out(renderLs(r.value.rows, r.value.hidden, opts.where !== undefined));
}
