import type { Command } from 'commander';
import { formatInstant } from '../../edn/instant-text.js';
import { TikError } from '../../errors.js';
import { ADMISSION_LIMITS, checkSize } from '../../store/admission/index.js';
import { sha256Id } from '../../store/store-names.js';
import type { CliContext } from '../context.js';
import { openStore, openTicket } from '../store-access.js';
import { appendChain, body } from '../write-events.js';
import { printWritten } from '../written.js';

/**
 * `tik comment <id> text…`: a comment is not an event type; it is an attach of a UTF-8 text blob
 * at `comment/<Instant.toString of its :at>` (§2.2).
 */
export function registerComment(program: Command, ctx: CliContext): void {
  program
    .command('comment')
    .description('add a comment (a text blob attached at comment/<instant>)')
    .argument('<ticket>', 'ticket id or unique prefix')
    .argument('<text...>', 'the comment text (words are joined with spaces)')
    .option('--json', 'print the written event id as JSON')
    .action(async (prefix: string, words: string[], opts: { json?: boolean }) => {
      const text = words.join(' ');
      if (text.trim() === '') throw new TikError('cli/usage', 'a comment needs some text', { where: 'text' });
      const bytes = Buffer.from(text, 'utf8');
      checkSize('a comment', bytes.length, ADMISSION_LIMITS.blob, 'text');
      const hash = sha256Id(bytes);
      const store = await openStore(ctx);
      const t = await openTicket(ctx, store, prefix);
      const written = await appendChain(
        ctx,
        store,
        t.ticket,
        t.events,
        [{ type: 'artifact/attach', body: (at) => body({ 'artifact/path': `comment/${formatInstant(at.ms)}`, 'artifact/hash': hash }) }],
        async () => {
          await store.putBlob(t.ticket, bytes);
        },
      );
      printWritten(ctx, t.ticket, written, opts.json);
    });
}
