import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { keepsRawText, parseAssignment, parseCliValue } from '../kv-args.js';
import { openTicket, openStore } from '../store-access.js';
import { appendChain, body } from '../write-events.js';
import { printWritten } from '../written.js';

/** `tik set <id> k=v…`: one chained `:fact/assert` per assignment. */
export function registerSet(program: Command, ctx: CliContext): void {
  program
    .command('set')
    .description('assert facts: key=value (dotted keys; a value is EDN if it parses, a bare word a keyword, else a string)')
    .argument('<ticket>', 'ticket id or unique prefix')
    .argument('<assignments...>', 'key=value pairs, e.g. severity=high resolution.ref=abc123')
    .option('--json', 'print the written event ids as JSON')
    .action(async (prefix: string, assignments: string[], opts: { json?: boolean }) => {
      const parsed = assignments.map(parseAssignment);
      const store = await openStore(ctx);
      const t = await openTicket(ctx, store, prefix);
      const intents = parsed.map((a) => ({
        type: 'fact/assert',
        body: body({
          'fact/path': [...a.path],
          'fact/value': parseCliValue(a.valueText, { raw: keepsRawText(t.def?.raw, a.path) }),
        }),
      }));
      const written = await appendChain(ctx, store, t.ticket, t.events, intents);
      printWritten(ctx, t.ticket, written, opts.json);
    });
}
