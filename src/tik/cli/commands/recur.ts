import type { Command } from 'commander';
import type { CliContext } from '../context.js';
/**
 * `tik recur <process> --period LABEL [--at INST] [--title T]`: open the ticket for one period of
 * a recurring process, deterministically (§9): the id is derived from the process name and the
 * label, `:at` is the period's start, so every replica mints byte-identical events. A no-op when
 * a ticket of that process already has that `[:period]`.
 */
export function registerRecur(verb: Command, ctx: CliContext): void {
  verb
    .argument('<process>', 'the process name (processes/<process>.edn)')
    .requiredOption('--period <label>', 'yyyy, yyyy-Qn, yyyy-MM, yyyy-MM-dd, yyyy-Www, or free-form with --at')
    .option('--at <instant>', 'the instant of the events (default: the start of the period)')
    .option('--title <title>', 'the title (default "<process> <label>")')
    .option('--json', 'print {ticket, created, events: [ids]}')
    .action(async (name: string, opts: { period: string; at?: string; title?: string; json?: boolean }) => {
      const { parseInstantText } = await import('../../app/instant-arg.js');
      const { printWarnings, serviceFor } = await import('../service.js');
      const atMs = opts.at !== undefined ? parseInstantText(opts.at, '--at').ms : undefined;
      const svc = await serviceFor(ctx, { write: true });
      const r = await svc.recur({ actor: ctx.actor(), process: name, period: opts.period, atMs, title: opts.title });
      printWarnings(ctx, r.warnings);
      if (opts.json) ctx.json(r.value);
      else if (r.value.created) ctx.out(r.value.ticket);
      else ctx.out(`already have ${r.value.ticket} for ${name} ${opts.period}`);
    });
}
