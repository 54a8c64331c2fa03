import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { printWritten } from '../written.js';

/** `tik retract <id> k [--reason R]`: withdraw a fact (clears its disputes). */
export function registerRetract(verb: Command, ctx: CliContext): void {
  verb
    .argument('<ticket>', 'ticket id or unique prefix')
    .argument('<key>', 'dotted key, e.g. customer.ack')
    .option('--reason <text>', 'why (kept as :retract/reason)')
    .option('--json', 'print the written event id as JSON')
    .action(async (prefix: string, key: string, opts: { reason?: string; json?: boolean }) => {
      const { parseKeyPath } = await import('../../app/kv-args.js');
      const { printWarnings, serviceFor } = await import('../service.js');
      parseKeyPath(key, 'key'); // a bad key is a usage error before the store is opened
      const svc = await serviceFor(ctx, { write: true });
      const r = await svc.retract({ actor: ctx.actor(), ticket: prefix, key, reason: opts.reason });
      printWarnings(ctx, r.warnings);
      printWritten(ctx, r.value, opts.json);
    });
}
