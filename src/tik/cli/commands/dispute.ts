import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { printWritten } from '../written.js';

/**
 * `tik dispute <id> k [--reason R] [--withdraw]`: reject a fact (the stage that needs it stops
 * deriving), or withdraw your own disputes on it. The reason defaults to "disputed"/"withdrawn".
 */
export function registerDispute(verb: Command, ctx: CliContext): void {
  verb
    .argument('<ticket>', 'ticket id or unique prefix')
    .argument('<key>', 'dotted key, e.g. category')
    .option('--reason <text>', 'why (default "disputed", or "withdrawn" with --withdraw)')
    .option('--withdraw', "withdraw this actor's disputes on the key")
    .option('--json', 'print the written event id as JSON')
    .action(async (prefix: string, key: string, opts: { reason?: string; withdraw?: boolean; json?: boolean }) => {
      const { parseKeyPath } = await import('../../app/kv-args.js');
      const { printWarnings, serviceFor } = await import('../service.js');
      parseKeyPath(key, 'key');
      const svc = await serviceFor(ctx, { write: true });
      const r = await svc.dispute({ actor: ctx.actor(), ticket: prefix, key, reason: opts.reason, withdraw: opts.withdraw });
      printWarnings(ctx, r.warnings);
      printWritten(ctx, r.value, opts.json);
    });
}
