import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/**
 * `tik whatif <id> <step…> [--at INST] [--json]`: the stages hypothetical steps would gain or lose;
 * nothing is written. Steps: `k=v` (asserted by the current actor), `retract:k`, `+PT48H` (time
 * passes).
 */
export function registerWhatif(verb: Command, ctx: CliContext): void {
  verb
    .argument('<ticket>', 'ticket id or unique prefix')
    .argument('<steps...>', 'k=v (assert), retract:k (withdraw), +DURATION (time passes, ISO-8601 e.g. +P2D)')
    .option('--at <instant>', 'start from this instant instead of now')
    .option('--json', 'print {steps, gained, lost} as JSON')
    .action(async (prefix: string, steps: string[], opts: { at?: string; json?: boolean }) => {
      const { readNow } = await import('../read-now.js');
      const { renderWhatif } = await import('../render.js');
      const { printWarnings, serviceFor } = await import('../service.js');
      const r = await (await serviceFor(ctx)).whatif(prefix, steps, ctx.actor(), { at: readNow(ctx, opts.at) });
      printWarnings(ctx, r.warnings);
      if (opts.json) ctx.json({ steps: [...r.value.json.steps], gained: [...r.value.json.gained], lost: [...r.value.json.lost] });
      else ctx.out(renderWhatif(r.value.json));
    });
}
