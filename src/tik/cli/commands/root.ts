import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/**
 * `tik root [--witness [--key FILE]] [--anchor] [--json]`: one hash committing to the whole store —
 * the SHA-256 of the canonical document `{ticket #{head …} …}` — so two replicas compare in O(1).
 * `--witness` countersigns it (`roots/<root>.witness.<fpr16>`); `--anchor` stamps it with the
 * external `ots` tool (`roots/<root>.ots`). The document is never stored, since it regenerates
 * byte-identically and `verify` re-derives it to check the signature.
 */
export function registerRoot(verb: Command, ctx: CliContext): void {
  verb
    .option('--witness', 'countersign the root with --key or $TIK_KEY (roots/<root>.witness.<fpr16>)')
    .option('--key <file>', 'OpenSSH ed25519 private key for --witness (default: $TIK_KEY)')
    .option('--anchor', 'a third-party timestamp: stamp the root with the external ots tool (opentimestamps-client; optional) as roots/<root>.ots')
    .option('--json', 'print {root, tickets, document, witness: {sidecar, written} | null, anchor: {sidecar, written} | null}')
    .action(async (opts: { witness?: boolean; key?: string; anchor?: boolean; json?: boolean }) => {
      const { TikError } = await import('../../errors.js');
      if ((opts.witness || opts.anchor) && ctx.globals().remote) {
        // --remote works on a pulled copy and pushes events and their sidecars; roots/ is not synced
        const flag = opts.witness ? '--witness' : '--anchor';
        throw new TikError('cli/usage', `root ${flag} cannot run with --remote: a root ${opts.witness ? 'witness' : 'anchor'} is kept in roots/, which sync does not carry`, {
          where: '--remote',
          hint: `run tik root ${flag} on the replica's own store; tik --remote URL root prints its root`,
        });
      }
      const { requireSigningKey } = await import('../required-key.js');
      const { openStore } = await import('../store-access.js');
      const { rootOf } = await import('../../app/countersign.js');
      // the key and the ots tool are found before the store is read, so a missing one writes nothing
      const key = opts.witness ? requireSigningKey(ctx, opts.key) : undefined;
      const stamp = opts.anchor ? await (await import('../ots-stamp.js')).otsStamper(ctx.io.env) : undefined;
      const r = await rootOf(await openStore(ctx), { key, stamp });
      if (opts.json) return ctx.json(r);
      ctx.out(`${r.root} (${r.tickets} tickets)`);
      if (r.witness) ctx.out(`witnessed ${r.root.slice(0, 19)}… -> ${r.witness.sidecar}`);
      if (r.anchor) ctx.out(`anchored ${r.root.slice(0, 19)}… -> ${r.anchor.sidecar} (${r.anchor.written ? '' : 'already stamped; '}upgrade after ~1 block: ots upgrade)`);
    });
}
