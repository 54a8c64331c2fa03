import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/**
 * `tik probe [<id>] [--command C] [--at INST] [--json]`: derive facts from the world. Each
 * repository ticket's probe (the `:probe` of processes/<process>.edn, or `--command`) runs with its
 * working directory in the repository named by the ticket's `[:repo]` fact; every `key=value` it
 * prints that differs from the ticket's present value is asserted. The events are dated at the
 * observation instant (`--at`, default the start of the current UTC minute), so they are a pure
 * function of the log, the output and that instant (law T5).
 */
/** How long a probe may run when `--timeout` does not say (seconds): ample for a `git` query, short enough to notice a hung one. */
const DEFAULT_TIMEOUT_S = 60;

export function registerProbe(verb: Command, ctx: CliContext): void {
  verb
    .argument('[ticket]', 'ticket id or unique prefix (default: every unsettled ticket with a [:repo] fact)')
    .option('--command <command>', 'run this instead of the :probe in processes/<process>.edn (a script file or a shell command)')
    .option('--timeout <seconds>', `stop a probe still running after this many seconds, with every process it started (default ${DEFAULT_TIMEOUT_S})`)
    .option('--at <instant>', 'the observation instant the facts are dated at (default: the start of the current UTC minute)')
    .option('--json', 'print {at, ran, skipped, failed, derived, tickets: [{ticket, repo, outcome, reason, facts, gained}]}')
    .action(async (prefix: string | undefined, opts: { command?: string; at?: string; timeout?: string; json?: boolean }) => {
      const { parseInstantText } = await import('../../app/instant-arg.js');
      const { printWarnings, serviceFor } = await import('../service.js');
      const { probeHost } = await import('../probe-host.js');
      const timeoutS = opts.timeout === undefined ? DEFAULT_TIMEOUT_S : Number(opts.timeout);
      if (!(timeoutS > 0 && timeoutS <= 86_400)) {
        const { TikError } = await import('../../errors.js');
        throw new TikError('cli/usage', `--timeout must be a number of seconds above 0 and at most 86400, got ${JSON.stringify(opts.timeout)}`, { where: '--timeout', hint: 'e.g. --timeout 300' });
      }
      const { dirname } = await import('node:path');
      const { runClock } = await import('../run-clock.js');
      const now = runClock(ctx).now();
      const atMs = opts.at !== undefined ? parseInstantText(opts.at, '--at').ms : now.ms - (((now.ms % 60_000) + 60_000) % 60_000);
      const svc = await serviceFor(ctx, { write: true });
      const store = svc.store;
      const storeDir = store.kind === 'file' ? store.location : store.kind === 'sqlite' ? dirname(store.location) : undefined;
      const r = await svc.probe({ actor: ctx.actor(), ticket: prefix, command: opts.command, atMs, now }, probeHost(ctx, storeDir, timeoutS));
      printWarnings(ctx, r.warnings);
      const v = r.value;
      // as ls: a failed probe or an unreadable ticket is reported, the others still run, exit 1
      if (v.failed > 0 || (v.unreadable?.length ?? 0) > 0) ctx.fail(1);
      if (opts.json) return ctx.json(v);
      for (const t of v.tickets) {
        const who = `${t.ticket.slice(0, 8)} ${t.repo ?? ''}`;
        if (t.outcome === 'failed') ctx.out(`${who}: probe failed — ${t.reason ?? ''}`);
        for (const f of t.facts) ctx.out(`${who}: ${f.key} = ${f.value}`);
        if (t.gained.length > 0) ctx.out(`${who} -> ${t.gained.map((s) => s.replace(/^:/, '')).join(', ')}`);
      }
      ctx.out(
        `${v.derived} fact(s) derived from the world — recorded like any other claim (${v.ran} probe(s) ran` +
          `${v.skipped > 0 ? `, ${v.skipped} ticket(s) had nothing to probe` : ''}${v.failed > 0 ? `, ${v.failed} failed` : ''})`,
      );
    });
}
