import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/**
 * `tik causal <id> [--at INST] [--json]`: which events made each reached stage true — fact guards
 * cite the event behind the current value, `:artifact` the attaches, `:attested-within` the
 * attestations; negations, time and stage prerequisites say so in a note.
 */
export function registerCausal(verb: Command, ctx: CliContext): void {
  verb
    .argument('<ticket>', 'ticket id or unique prefix')
    .option('--at <instant>', 'derive at this instant instead of now')
    .option('--json', 'print the evidence as JSON (see docs/tik.md)')
    .action(async (prefix: string, opts: { at?: string; json?: boolean }) => {
      const { readNow } = await import('../read-now.js');
      const { renderCausal } = await import('../render.js');
      const { printWarnings, serviceFor } = await import('../service.js');
      const r = await (await serviceFor(ctx)).causal(prefix, { at: readNow(ctx, opts.at) });
      printWarnings(ctx, r.warnings);
      if (opts.json) ctx.json(r.value.json);
      else ctx.out(renderCausal(r.value.json, r.value.open.events));
    });
}
