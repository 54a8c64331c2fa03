import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { listTickets } from './ls.js';

/**
 * `tik search <word…> [--json]`: every ticket, settled ones included, whose title and facts hold
 * every word (case-insensitive) — upstream's sugar for `ls --all --where '~w1 ~w2 …'`.
 */
export function registerSearch(verb: Command, ctx: CliContext): void {
  verb
    .argument('<words...>', 'words to find, case-insensitive')
    .option('--json', 'print the list as JSON (the rows of ls --json)')
    .action(async (words: string[], opts: { json?: boolean }) => {
      await listTickets(ctx, { all: true, where: words.map((w) => `~${w}`).join(' '), json: opts.json === true });
    });
}
