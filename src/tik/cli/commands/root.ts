import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/**
 * `tik root [--witness [--key FILE]] [--json]`: one hash committing to the whole store — the
 * SHA-256 of the canonical document `{ticket #{head …} …}` — so two replicas compare in O(1).
 * `--witness` countersigns it (`roots/<root>.witness.<fpr16>`); the document is never stored,
 * since it regenerates byte-identically and `verify` re-derives it to check the signature.
 */
export function registerRoot(verb: Command, ctx: CliContext): void {
  verb
    .option('--witness', 'countersign the root with --key or $TIK_KEY (roots/<root>.witness.<fpr16>)')
    .option('--key <file>', 'OpenSSH ed25519 private key for --witness (default: $TIK_KEY)')
    .option('--anchor', 'third-party timestamp (upstream runs the external ots tool): not implemented, refused')
    .option('--json', 'print {root, tickets, document, witness: {sidecar, written} | null}')
    .action(async (opts: { witness?: boolean; key?: string; anchor?: boolean; json?: boolean }) => {
      const { TikError } = await import('../../errors.js');
      if (opts.anchor) {
        throw new TikError('root/anchor-unsupported', 'tik root --anchor (OpenTimestamps) is not implemented here; nothing was written', {
          where: '--anchor',
          hint: 'write the document with tik root --json (its "document" field) to a file and stamp that file with ots stamp',
        });
      }
      if (opts.witness && ctx.globals().remote) {
        // --remote works on a pulled copy and pushes events and their sidecars; roots/ is not synced
        throw new TikError('cli/usage', 'root --witness cannot run with --remote: a root witness is kept in roots/, which sync does not carry', {
          where: '--remote',
          hint: "run tik root --witness on the replica's own store; tik --remote URL root prints its root",
        });
      }
      const { requireSigningKey } = await import('../required-key.js');
      const { openStore } = await import('../store-access.js');
      const { rootOf } = await import('../../app/countersign.js');
      // the key is read before the store, so a bad key writes nothing
      const key = opts.witness ? requireSigningKey(ctx, opts.key) : undefined;
      const r = await rootOf(await openStore(ctx), key);
      if (opts.json) return ctx.json(r);
      ctx.out(`${r.root} (${r.tickets} tickets)`);
      if (r.witness) ctx.out(`witnessed ${r.root.slice(0, 19)}… -> ${r.witness.sidecar}`);
    });
}
