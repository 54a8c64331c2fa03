import type { Command } from 'commander';
import { fpr16 } from '../../../core/sshsig.js';
import type { CliContext } from '../context.js';

/**
 * `tik sign [id] [--key FILE]`: sign the current actor's own unsigned events (namespace
 * `tik-event`, sidecar `<id>.sig.<fpr16>`), in one ticket or all. Other actors' events are never
 * signed: a signature claims authorship.
 */
export function registerSign(verb: Command, ctx: CliContext): void {
  verb
    .argument('[ticket]', 'ticket id or unique prefix (default: every ticket)')
    .option('--key <file>', 'OpenSSH ed25519 private key (default: $TIK_KEY)')
    .option('--json', 'print {signed: [{ticket, event, sidecar}]}')
    .action(async (prefix: string | undefined, opts: { key?: string; json?: boolean }) => {
      const { resolveTicket } = await import('../../store/resolve-ticket.js');
      const { signatureSidecarName } = await import('../../store/store-names.js');
      const { signStoredEvent } = await import('../signing-key.js');
      const { openStore } = await import('../store-access.js');
      const { requireSigningKey } = await import('../required-key.js');
      const { parseStoredEvents } = await import('../../app/ticket-loader.js');
      const key = requireSigningKey(ctx, opts.key);
      const actor = ctx.actor();
      const store = await openStore(ctx);
      const tickets = prefix !== undefined ? [await resolveTicket(store, prefix)] : await store.ticketIds();
      const fpr = fpr16(key.publicKey.base64);
      const signed: { ticket: string; event: string; sidecar: string }[] = [];
      for (const ticket of tickets) {
        const events = parseStoredEvents(ticket, await store.events(ticket));
        const existing = new Set(await store.sidecarNames(ticket));
        for (const e of events) {
          if (e.actor !== actor || existing.has(signatureSidecarName(e.id, fpr))) continue;
          signed.push({ ticket, event: e.id, sidecar: await signStoredEvent(store, ticket, e.id, key) });
        }
      }
      if (opts.json) ctx.json({ actor, fpr16: fpr, signed });
      else {
        for (const s of signed) ctx.out(`signed ${s.ticket} ${s.event}`);
        ctx.out(`${signed.length} event${signed.length === 1 ? '' : 's'} signed as ${actor} (key ${fpr})`);
      }
    });
}
