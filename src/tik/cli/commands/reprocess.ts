import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/**
 * `tik reprocess <id> <new.edn> [--apply] [--reason TEXT] [--json]`: re-pin a ticket to a new
 * definition of its process. A dry run unless `--apply`: the stages it would gain and lose, and
 * what the new rules would newly demand; `--apply` archives the definition by hash and appends a
 * `:process/migrate` event.
 */
export function registerReprocess(verb: Command, ctx: CliContext): void {
  verb
    .argument('<ticket>', 'ticket id or unique prefix')
    .argument('<definition>', 'the proposed process definition file')
    .option('--apply', 'append the :process/migrate event (and archive the definition)')
    .option('--reason <text>', 'why (recorded in the event as :migrate/reason)')
    .option('--json', 'print the result as JSON (see docs/tik.md)')
    .action(async (prefix: string, file: string, opts: { apply?: boolean; reason?: string; json?: boolean }) => {
      const { TikError } = await import('../../errors.js');
      const { ADMISSION_LIMITS, readFileBounded } = await import('../../store/admission/index.js');
      const { renderReprocess } = await import('../render.js');
      const { printWarnings, serviceFor } = await import('../service.js');
      // bounded while reading, at the archived-definition limit
      const bytes = await readFileBounded(ctx.path(file), ADMISSION_LIMITS.process, file);
      if (bytes === undefined) throw new TikError('cli/no-file', `cannot read ${file}`, { where: file, hint: 'give the path of the proposed process definition' });
      const text = bytes.toString('utf8');
      const r = await (await serviceFor(ctx, { write: opts.apply === true })).reprocess({ actor: ctx.actor(), ticket: prefix, definitionText: text, file, apply: opts.apply === true, reason: opts.reason });
      printWarnings(ctx, r.warnings);
      if (opts.json) ctx.json({ ...r.value, gained: [...r.value.gained], lost: [...r.value.lost], blockers: r.value.blockers.map((b) => ({ stage: b.stage, missing: [...b.missing] })) });
      else ctx.out(renderReprocess(r.value));
    });
}
