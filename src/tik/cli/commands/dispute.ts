import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { parseKeyPath } from '../kv-args.js';
import { openStore, openTicket } from '../store-access.js';
import { appendChain, body } from '../write-events.js';
import { printWritten } from '../written.js';

/**
 * `tik dispute <id> k [--reason R] [--withdraw]`: reject a fact (the stage that needs it stops
 * deriving), or withdraw your own disputes on it. The reason defaults to "disputed"/"withdrawn".
 */
export function registerDispute(program: Command, ctx: CliContext): void {
  program
    .command('dispute')
    .description('dispute a fact, or withdraw your disputes on it')
    .argument('<ticket>', 'ticket id or unique prefix')
    .argument('<key>', 'dotted key, e.g. category')
    .option('--reason <text>', 'why (default "disputed", or "withdrawn" with --withdraw)')
    .option('--withdraw', "withdraw this actor's disputes on the key")
    .option('--json', 'print the written event id as JSON')
    .action(async (prefix: string, key: string, opts: { reason?: string; withdraw?: boolean; json?: boolean }) => {
      const path = parseKeyPath(key, 'key');
      const store = await openStore(ctx);
      const t = await openTicket(ctx, store, prefix);
      const reason = opts.reason ?? (opts.withdraw ? 'withdrawn' : 'disputed');
      const written = await appendChain(ctx, store, t.ticket, t.events, [
        {
          type: 'fact/dispute',
          body: body({ 'fact/path': [...path], 'dispute/reason': reason, 'dispute/withdraw?': opts.withdraw ? true : undefined }),
        },
      ]);
      printWritten(ctx, t.ticket, written, opts.json);
    });
}
