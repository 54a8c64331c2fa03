import { basename } from 'node:path';
import type { Command } from 'commander';
import { TikError } from '../../errors.js';
import { ADMISSION_LIMITS, readFileBounded } from '../../store/admission/index.js';
import { sha256Id } from '../../store/store-names.js';
import type { CliContext } from '../context.js';
import { openStore, openTicket } from '../store-access.js';
import { appendChain, body } from '../write-events.js';
import { printWritten } from '../written.js';

/** `tik attach <id> file [--as path]`: store the file as a blob and attach it (default `repro/<name>`). */
export function registerAttach(program: Command, ctx: CliContext): void {
  program
    .command('attach')
    .description('attach a file as an artifact (stored by hash under the ticket)')
    .argument('<ticket>', 'ticket id or unique prefix')
    .argument('<file>', 'the file to attach')
    .option('--as <path>', 'the artifact path guards match (default repro/<file name>)')
    .option('--json', 'print the written event id as JSON')
    .action(async (prefix: string, file: string, opts: { as?: string; json?: boolean }) => {
      // bounded while reading: an endless file stops at the shared blob limit
      const bytes = await readFileBounded(ctx.path(file), ADMISSION_LIMITS.blob, file);
      if (bytes === undefined) throw new TikError('cli/no-file', `cannot read ${file}`, { where: file, hint: 'give the path of an existing file' });
      const artifactPath = opts.as ?? `repro/${basename(file)}`;
      if (artifactPath === '') throw new TikError('cli/usage', '--as needs a non-empty artifact path', { where: '--as' });
      const store = await openStore(ctx);
      const t = await openTicket(ctx, store, prefix);
      const hash = sha256Id(bytes);
      const written = await appendChain(
        ctx,
        store,
        t.ticket,
        t.events,
        [{ type: 'artifact/attach', body: body({ 'artifact/path': artifactPath, 'artifact/hash': hash }) }],
        async () => {
          await store.putBlob(t.ticket, bytes);
        },
      );
      printWritten(ctx, t.ticket, written, opts.json);
    });
}
