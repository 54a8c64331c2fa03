import type { Command } from 'commander';
import { TikError } from '../../errors.js';
import type { CliContext } from '../context.js';
import { printWritten } from '../written.js';

/**
 * `tik comment <id> text…`: a comment is not an event type; it is an attach of a UTF-8 text blob
 * at `comment/<Instant.toString of its :at>` (§2.2).
 */
export function registerComment(verb: Command, ctx: CliContext): void {
  verb
    .argument('<ticket>', 'ticket id or unique prefix')
    .argument('<text...>', 'the comment text (words are joined with spaces)')
    .option('--json', 'print the written event id as JSON')
    .action(async (prefix: string, words: string[], opts: { json?: boolean }) => {
      const { ADMISSION_LIMITS, checkSize } = await import('../../store/admission/index.js');
      const { printWarnings, serviceFor } = await import('../service.js');
      const text = words.join(' ');
      if (text.trim() === '') throw new TikError('cli/usage', 'a comment needs some text', { where: 'text' });
      checkSize('a comment', Buffer.byteLength(text, 'utf8'), ADMISSION_LIMITS.blob, 'text');
      const svc = await serviceFor(ctx, { write: true });
      const r = await svc.comment({ actor: ctx.actor(), ticket: prefix, text });
      printWarnings(ctx, r.warnings);
      printWritten(ctx, r.value, opts.json);
    });
}
