import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/**
 * `tik witness <id> [--key FILE] [--json]`: countersign every current head of a ticket
 * (`<head>.witness.<fpr16>`, namespace `tik-witness`). A head commits to its whole ancestry, so
 * one signature timestamps every event before it (upstream ADR 0004); `verify` checks it (L3).
 */
export function registerWitness(verb: Command, ctx: CliContext): void {
  verb
    .argument('<ticket>', 'ticket id or unique prefix')
    .option('--key <file>', 'OpenSSH ed25519 private key (default: $TIK_KEY)')
    .option('--json', 'print {ticket, fpr16, heads: [{event, sidecar, written}]}')
    .action(async (prefix: string, opts: { key?: string; json?: boolean }) => {
      const { requireSigningKey } = await import('../required-key.js');
      const { openStore } = await import('../store-access.js');
      const { witnessHeads } = await import('../../app/countersign.js');
      const key = requireSigningKey(ctx, opts.key);
      const r = await witnessHeads(await openStore(ctx), prefix, key);
      if (opts.json) return ctx.json(r);
      for (const h of r.heads) ctx.out(`witnessed ${h.event.slice(0, 19)}…`);
      ctx.out(`${r.heads.length} head(s) countersigned — each timestamps its entire ancestry`);
    });
}
