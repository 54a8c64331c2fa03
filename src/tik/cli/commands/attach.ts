import { basename } from 'node:path';
import type { Command } from 'commander';
import { TikError } from '../../errors.js';
import type { CliContext } from '../context.js';
import { printWritten } from '../written.js';

/** `tik attach <id> file [--as path]`: store the file as a blob and attach it (default `repro/<name>`). */
export function registerAttach(verb: Command, ctx: CliContext): void {
  verb
    .argument('<ticket>', 'ticket id or unique prefix')
    .argument('<file>', 'the file to attach')
    .option('--as <path>', 'the artifact path guards match (default repro/<file name>)')
    .option('--json', 'print the written event id as JSON')
    .action(async (prefix: string, file: string, opts: { as?: string; json?: boolean }) => {
      const { ADMISSION_LIMITS, readFileBounded } = await import('../../store/admission/index.js');
      const { printWarnings, serviceFor } = await import('../service.js');
      // bounded while reading: an endless file stops at the shared blob limit
      const bytes = await readFileBounded(ctx.path(file), ADMISSION_LIMITS.blob, file);
      if (bytes === undefined) throw new TikError('cli/no-file', `cannot read ${file}`, { where: file, hint: 'give the path of an existing file' });
      const path = opts.as ?? `repro/${basename(file)}`;
      if (path === '') throw new TikError('cli/usage', '--as needs a non-empty artifact path', { where: '--as' });
      const svc = await serviceFor(ctx, { write: true });
      const r = await svc.attach({ actor: ctx.actor(), ticket: prefix, path, bytes });
      printWarnings(ctx, r.warnings);
      printWritten(ctx, r.value, opts.json);
    });
}
