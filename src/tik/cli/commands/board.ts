import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/**
 * `tik board [FILE.html] [--at INST]`: the whole board as one dependency-free HTML page (no script,
 * no network): written to FILE (atomically), or printed. Unreadable tickets are named on the page
 * and on stderr, and the run exits 1.
 */
export function registerBoard(verb: Command, ctx: CliContext): void {
  verb
    .argument('[file]', 'write the page here instead of printing it')
    .option('--at <instant>', 'derive at this instant instead of now')
    .action(async (file: string | undefined, opts: { at?: string }) => {
      const { readNow } = await import('../read-now.js');
      const { printWarnings, serviceFor } = await import('../service.js');
      const r = await (await serviceFor(ctx)).board({ at: readNow(ctx, opts.at) });
      printWarnings(ctx, r.warnings);
      if (r.value.skipped.length > 0) ctx.fail(1);
      if (file === undefined) {
        ctx.out(r.value.html.trimEnd());
        return;
      }
      const { writeOutputFile } = await import('../output-file.js');
      await writeOutputFile(ctx, file, r.value.html);
      ctx.out(`wrote ${file}`);
    });
}
