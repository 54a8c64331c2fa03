import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { parseKeyPath } from '../kv-args.js';
import { openStore, openTicket } from '../store-access.js';
import { appendChain, body } from '../write-events.js';
import { printWritten } from '../written.js';

/** `tik retract <id> k [--reason R]`: withdraw a fact (clears its disputes). */
export function registerRetract(program: Command, ctx: CliContext): void {
  program
    .command('retract')
    .description('withdraw a fact without replacement')
    .argument('<ticket>', 'ticket id or unique prefix')
    .argument('<key>', 'dotted key, e.g. customer.ack')
    .option('--reason <text>', 'why (kept as :retract/reason)')
    .option('--json', 'print the written event id as JSON')
    .action(async (prefix: string, key: string, opts: { reason?: string; json?: boolean }) => {
      const path = parseKeyPath(key, 'key');
      const store = await openStore(ctx);
      const t = await openTicket(ctx, store, prefix);
      const written = await appendChain(ctx, store, t.ticket, t.events, [
        { type: 'fact/retract', body: body({ 'fact/path': [...path], 'retract/reason': opts.reason }) },
      ]);
      printWritten(ctx, t.ticket, written, opts.json);
    });
}
