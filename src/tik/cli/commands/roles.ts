import type { Command } from 'commander';
import { TikError } from '../../errors.js';
import type { CliContext } from '../context.js';
import { printWritten } from '../written.js';

/**
 * `tik roles show [--json]` and `tik roles publish [--json]`: the roles register in effect, and
 * replicating this store's `roles.edn` through the roles ticket (docs/tik-sync.md, "Roles").
 */
export function registerRoles(verb: Command, ctx: CliContext): void {
  verb
    .command('show')
    .description('print where the roles register in effect comes from (the replicated roles ticket or roles.edn) and its digest')
    .option('--json', 'print {source, status, digest, fileDiffers, contenders?, register}')
    .action(async (opts: { json?: boolean }) => {
      const { effectiveRegister } = await import('../../roles/effective-register.js');
      const { ROLES_TICKET } = await import('../../roles/roles-ticket.js');
      const { openStore } = await import('../store-access.js');
      const r = await effectiveRegister(await openStore(ctx));
      if (opts.json) ctx.json({ source: r.source, status: r.status, digest: r.digest ?? null, fileDiffers: r.fileDiffers, ...(r.contenders ? { contenders: r.contenders } : {}), register: r.text ?? null });
      else {
        ctx.out(`roles: ${r.source === 'ticket' ? `the roles ticket ${ROLES_TICKET}` : r.source === 'file' ? 'roles.edn (not replicated; tik roles publish replicates it)' : 'none'}${r.status === 'conflicted' ? ' — CONFLICTED' : ''}${r.digest ? ` ${r.digest}` : ''}`);
        if (r.fileDiffers) ctx.warn('roles.edn differs from the replicated register, which is the one in effect (tik roles publish makes roles.edn the register)');
        if (r.contenders) ctx.warn(`concurrent publishes contend (${r.contenders.join(', ')}): each role keeps only the members all of them name; publish again to resolve`);
      }
    });
  verb
    .command('publish')
    .description('publish this store’s roles.edn as the replicated roles register (one :fact/assert on the roles ticket; it syncs like any event)')
    .option('--json', 'print the written event ids as JSON')
    .action(async (opts: { json?: boolean }) => {
      const { emit, isMap, readEdn } = await import('../../edn/index.js');
      const { parseRoleMap } = await import('../../kernel/index.js');
      const { ROLES_PROCESS, ROLES_PROCESS_TEXT, ROLES_TICKET, rolesTicketCreate } = await import('../../roles/roles-ticket.js');
      const { printWarnings, serviceFor } = await import('../service.js');
      const { openStore } = await import('../store-access.js');
      const store = await openStore(ctx);
      const text = await store.readRolesRegister();
      if (text === undefined) throw new TikError('cli/usage', `${store.location} has no roles.edn to publish`, { where: 'roles.edn', hint: 'write roles.edn ({:role {:members ["actor"]}}), then tik roles publish' });
      const register = readEdn(text, 'roles.edn');
      if (!isMap(register)) throw new TikError('store/bad-roles', 'roles.edn is not a map {role {:members [...]}}', { where: 'roles.edn', hint: 'e.g. {:triager {:members ["seb"]}}' });
      parseRoleMap(register, 'roles.edn', '');
      // The ticket's create is the same bytes everywhere; write it (and its definition) once.
      if ((await store.readProcessByHash(ROLES_PROCESS.hash)) === undefined) await store.archiveProcess(ROLES_PROCESS_TEXT);
      if ((await store.events(ROLES_TICKET)).length === 0) {
        const c = rolesTicketCreate();
        await store.append(ROLES_TICKET, c.event.id, Buffer.from(c.text, 'utf8'));
      }
      const svc = await serviceFor(ctx, { write: true });
      const r = await svc.assert({ actor: ctx.actor(), ticket: ROLES_TICKET, facts: [{ key: 'register', value: emit(register) }] });
      printWarnings(ctx, r.warnings);
      printWritten(ctx, r.value, opts.json);
    });
}
