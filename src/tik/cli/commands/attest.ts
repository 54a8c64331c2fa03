import type { Command } from 'commander';
import { readEdn } from '../../edn/index.js';
import { isMap, Keyword, type EdnValue } from '../../edn/value.js';
import { ednMap } from '../../edn/index.js';
import { TikError } from '../../errors.js';
import type { CliContext } from '../context.js';
import { parseCliValue } from '../kv-args.js';
import { openStore, openTicket } from '../store-access.js';
import { appendChain } from '../write-events.js';
import { printWritten } from '../written.js';

/**
 * `tik attest <id> <claim-edn> [--body MAP]`: an `:attestation/add` whose body is
 * `{:claim <claim>}` plus the entries of `--body` (§2.2). `tik attest <id> :sbom` satisfies
 * `[:attested-within :sbom "P1D"]`.
 */
export function registerAttest(program: Command, ctx: CliContext): void {
  program
    .command('attest')
    .description('record an attestation {:claim <claim> …}')
    .argument('<ticket>', 'ticket id or unique prefix')
    .argument('<claim>', 'the claim as EDN, e.g. :sbom (a bare word becomes a keyword)')
    .option('--body <edn-map>', 'more entries for the attestation body, as an EDN map')
    .option('--json', 'print the written event id as JSON')
    .action(async (prefix: string, claimText: string, opts: { body?: string; json?: boolean }) => {
      const claim = parseCliValue(claimText);
      const entries: [EdnValue, EdnValue][] = [];
      if (opts.body !== undefined) {
        let extra: EdnValue;
        try {
          extra = readEdn(opts.body, '--body');
        } catch (e) {
          throw new TikError('cli/bad-value', `--body is not EDN: ${e instanceof Error ? e.message : String(e)}`, {
            where: '--body',
            hint: 'write an EDN map, e.g. --body \'{:by "ci" :run 42}\'',
          });
        }
        if (!isMap(extra)) throw new TikError('cli/bad-value', '--body must be an EDN map', { where: '--body', hint: "e.g. --body '{:run 42}'" });
        for (const [k, v] of extra.entries()) entries.push([k, v]);
      }
      entries.push([Keyword.of('claim'), claim]);
      const store = await openStore(ctx);
      const t = await openTicket(ctx, store, prefix);
      const written = await appendChain(ctx, store, t.ticket, t.events, [{ type: 'attestation/add', body: ednMap(entries) }]);
      printWritten(ctx, t.ticket, written, opts.json);
    });
}
