import type { Command } from 'commander';
import { resolveTicket } from '../../store/resolve-ticket.js';
import { verifyStore, type VerifyReport } from '../../verify/index.js';
import type { CliContext } from '../context.js';
import { openStore } from '../store-access.js';

/**
 * `tik verify [id] [--json]`: the verify ladder per ticket — L0 bytes, names, schema, parents,
 * one root; L1 signatures against `actors`; L2 the pin resolves and derivation succeeds; L3 head
 * witnesses — plus the store-wide archive check. Exit 0 only if every ticket passes.
 */
export function registerVerify(program: Command, ctx: CliContext): void {
  program
    .command('verify')
    .description('check every ticket (or one): bytes and names (L0), signatures (L1), pinned definition and derivation (L2)')
    .argument('[ticket]', 'ticket id or unique prefix (default: every ticket)')
    .option('--json', 'print the verify report as JSON (see docs/tik.md)')
    .action(async (prefix: string | undefined, opts: { json?: boolean }) => {
      const store = await openStore(ctx);
      const ticket = prefix !== undefined ? await resolveTicket(store, prefix) : undefined;
      const report = await verifyStore(store, { ...(ticket !== undefined ? { ticket } : {}), now: ctx.clock.now() });
      if (opts.json) ctx.json(report);
      else ctx.out(renderVerify(report));
      if (!report.ok) ctx.fail(1);
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
