import type { Command } from 'commander';
import { TikError } from '../../errors.js';
import type { VerifyReport } from '../../verify/index.js';
import type { CliContext } from '../context.js';

/**
 * `tik verify [id] [--json]`: the verify ladder per ticket — L0 bytes, names, schema, parents,
 * one root; L1 signatures against `actors`; L2 the pin resolves and derivation succeeds; L3 head
 * witnesses — plus the store-wide archive check, and the roles register in effect (compared with
 * each `--peer`'s). Exit 0 only if every ticket passes and no peer's roles differ.
 */
export function registerVerify(verb: Command, ctx: CliContext): void {
  verb
    .argument('[ticket]', 'ticket id or unique prefix (default: every ticket)')
    .option('--json', 'print the verify report as JSON (see docs/tik.md)')
    .option('--peer <url>', 'also check that this tik serve replica derives with the same roles register (repeatable)', (v: string, prev: string[]) => [...prev, v], [] as string[])
    .action(async (prefix: string | undefined, opts: { json?: boolean; peer: string[] }) => {
      const { effectiveRegister } = await import('../../roles/effective-register.js');
      const { compareRoles, peerRolesDigest, rolesDifferLine } = await import('../../roles/peer-roles.js');
      const { resolveTicket } = await import('../../store/resolve-ticket.js');
      const { verifyStore } = await import('../../verify/index.js');
      const { runClock } = await import('../run-clock.js');
      const { openStore } = await import('../store-access.js');
      for (const p of opts.peer) {
        if (!/^https?:\/\/[^\s]+$/.test(p)) throw new TikError('cli/usage', `--peer must be an http(s) URL, got ${JSON.stringify(p)}`, { where: '--peer', hint: 'e.g. --peer http://127.0.0.1:7777' });
      }
      const store = await openStore(ctx);
      const ticket = prefix !== undefined ? await resolveTicket(store, prefix) : undefined;
      const report = await verifyStore(store, { ...(ticket !== undefined ? { ticket } : {}), now: runClock(ctx).now() });
      const register = await effectiveRegister(store);
      const peers = await Promise.all(opts.peer.map(async (url) => compareRoles(url, register, await peerRolesDigest(url))));
      const rolesOk = peers.every((p) => p.verdict !== 'differs');
      const roles = { source: register.source, status: register.status, digest: register.digest ?? null, fileDiffers: register.fileDiffers, ...(register.contenders ? { contenders: register.contenders } : {}), peers };
      if (opts.json) ctx.json({ ...report, ok: report.ok && rolesOk, roles });
      else {
        const lines = [renderVerify(report), `roles: ${register.source === 'ticket' ? 'the replicated roles ticket' : register.source === 'file' ? 'roles.edn (not replicated)' : 'none'} ${register.digest ?? ''}`.trimEnd()];
        if (register.status === 'conflicted') lines.push(`WARN roles: concurrent publishes contend (${register.contenders!.join(', ')}); each role keeps only the members all of them name`);
        if (register.fileDiffers) lines.push('WARN roles: roles.edn differs from the replicated register in effect (tik roles publish replicates it)');
        for (const p of peers) {
          const line = rolesDifferLine(p);
          if (line) lines.push(`FAIL ${line}`);
          else if (p.verdict === 'unknown') lines.push(`WARN roles: ${p.url} did not say which roles register it derives with`);
        }
        ctx.out(lines.join('\n'));
      }
      if (!report.ok || !rolesOk) ctx.fail(1);
    });
}

function renderVerify(report: VerifyReport): string {
  const lines: string[] = [];
  for (const t of report.tickets) {
    lines.push(`${t.ok ? 'ok  ' : 'FAIL'} ${t.ticket}`);
    for (const level of ['L0', 'L1', 'L2', 'L3'] as const) {
      for (const p of t.levels[level].problems) lines.push(`     ${level} ${p.code}: ${p.message}`);
    }
  }
  for (const p of report.store.problems) lines.push(`FAIL store ${p.code}: ${p.message}`);
  const failed = report.tickets.filter((t) => !t.ok).length;
  lines.push(`${report.tickets.length - failed} ticket${report.tickets.length - failed === 1 ? '' : 's'} verified, ${failed} failed${report.ok ? '' : ' — store NOT verified'}`);
  return lines.join('\n');
}
