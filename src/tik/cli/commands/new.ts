import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/**
 * `tik new <process> [--title T]`: lint the named definition `processes/<process>.edn` (errors
 * refuse), archive its canonical bytes by hash, and write a `:ticket/create` pinning name,
 * version and hash. Prints the new ticket id.
 */
export function registerNew(verb: Command, ctx: CliContext): void {
  verb
    .argument('<process>', 'the process name (file stem under processes/)')
    .option('--title <title>', 'the ticket title (default: the process name)')
    .option('--json', 'print {ticket, event, process: {id, version, hash}}')
    .action(async (name: string, opts: { title?: string; json?: boolean }) => {
      const { printWarnings, serviceFor } = await import('../service.js');
      const svc = await serviceFor(ctx, { write: true });
      const r = await svc.create({ actor: ctx.actor(), process: name, title: opts.title });
      printWarnings(ctx, r.warnings);
      if (opts.json) ctx.json(r.value);
      else ctx.out(r.value.ticket);
    });
}
