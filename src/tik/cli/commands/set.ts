import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { printWritten } from '../written.js';

/** `tik set <id> k=v…`: one chained `:fact/assert` per assignment. */
export function registerSet(verb: Command, ctx: CliContext): void {
  verb
    .argument('<ticket>', 'ticket id or unique prefix')
    .argument('<assignments...>', 'key=value pairs, e.g. severity=high resolution.ref=abc123')
    .option('--json', 'print the written event ids as JSON')
    .action(async (prefix: string, assignments: string[], opts: { json?: boolean }) => {
      const { parseAssignment } = await import('../../app/kv-args.js');
      const { printWarnings, serviceFor } = await import('../service.js');
      const facts = assignments.map(parseAssignment).map((a) => ({ key: a.key, value: a.valueText }));
      const svc = await serviceFor(ctx, { write: true });
      const r = await svc.assert({ actor: ctx.actor(), ticket: prefix, facts });
      printWarnings(ctx, r.warnings);
      printWritten(ctx, r.value, opts.json);
    });
}
