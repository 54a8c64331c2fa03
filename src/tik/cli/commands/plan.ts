import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/**
 * `tik plan [FILE.html] [--json]`: the `[:link :depends-on]` roadmap — ready, blocked, done, cyclic,
 * the critical path and what settling each ticket unlocks; derived on every read.
 */
export function registerPlan(verb: Command, ctx: CliContext): void {
  verb
    .argument('[file]', 'write the roadmap as one self-contained HTML page')
    .option('--at <instant>', 'derive at this instant instead of now')
    .option('--json', 'print the plan as JSON (see docs/tik.md)')
    .action(async (file: string | undefined, opts: { at?: string; json?: boolean }) => {
      const { readNow } = await import('../read-now.js');
      const { planHtml, planJson, planText } = await import('../../app/plan-lens.js');
      const { printWarnings, serviceFor } = await import('../service.js');
      const r = await (await serviceFor(ctx)).plan({ at: readNow(ctx, opts.at) });
      printWarnings(ctx, r.warnings);
      if (r.value.skipped.length > 0) ctx.fail(1);
      if (file !== undefined) {
        const { writeOutputFile } = await import('../output-file.js');
        await writeOutputFile(ctx, file, planHtml(r.value.view));
        ctx.out(`wrote ${file} — the plan as a roadmap page`);
      } else if (opts.json) ctx.json(planJson(r.value.view));
      else ctx.out(planText(r.value.view));
    });
}
