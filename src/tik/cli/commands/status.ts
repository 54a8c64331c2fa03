import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/** `tik status <id> [--at INST] [--json]`: what stage, what facts, what is missing and who can supply it. */
export function registerStatus(verb: Command, ctx: CliContext): void {
  verb
    .argument('<ticket>', 'ticket id or unique prefix')
    .option('--at <instant>', 'derive at this instant instead of now (later events are clamped, not excluded)')
    .option('--json', 'print the status as JSON (see docs/tik.md)')
    .action(async (prefix: string, opts: { at?: string; json?: boolean }) => {
      const { readNow } = await import('../read-now.js');
      const { renderStatus } = await import('../render.js');
      const { printWarnings, serviceFor } = await import('../service.js');
      const at = readNow(ctx, opts.at);
      const svc = await serviceFor(ctx);
      if (opts.json) {
        const r = await svc.statusJson(prefix, { at });
        printWarnings(ctx, r.warnings);
        ctx.json(r.value.json);
        return;
      }
      const r = await svc.status(prefix, { at });
      printWarnings(ctx, r.warnings);
      ctx.out(renderStatus(r.value.view, r.value.open));
    });
}
