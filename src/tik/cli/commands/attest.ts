import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { printWritten } from '../written.js';

/**
 * `tik attest <id> <claim-edn> [--body MAP]`: an `:attestation/add` whose body is
 * `{:claim <claim>}` plus the entries of `--body` (§2.2). `tik attest <id> :sbom` satisfies
 * `[:attested-within :sbom "P1D"]`.
 */
export function registerAttest(verb: Command, ctx: CliContext): void {
  verb
    .argument('<ticket>', 'ticket id or unique prefix')
    .argument('<claim>', 'the claim as EDN, e.g. :sbom (a bare word becomes a keyword)')
    .option('--body <edn-map>', 'more entries for the attestation body, as an EDN map')
    .option('--json', 'print the written event id as JSON')
    .action(async (prefix: string, claim: string, opts: { body?: string; json?: boolean }) => {
      const { printWarnings, serviceFor } = await import('../service.js');
      const svc = await serviceFor(ctx, { write: true });
      const r = await svc.attest({ actor: ctx.actor(), ticket: prefix, claim, body: opts.body });
      printWarnings(ctx, r.warnings);
      printWritten(ctx, r.value, opts.json);
    });
}
