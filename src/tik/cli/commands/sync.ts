import type { Command } from 'commander';
import { TikError } from '../../errors.js';
import { httpTransport, syncWith } from '../../sync/index.js';
import type { CliContext } from '../context.js';
import { openStore } from '../store-access.js';

/** `tik sync URL [--pull | --push] [--json]`: reconcile with a `tik serve` replica, then pull and push. */
export function registerSync(program: Command, ctx: CliContext): void {
  program
    .command('sync')
    .description('sync this store with a tik serve replica (range-based reconciliation, then pull and push)')
    .argument('<url>', 'the replica, e.g. http://127.0.0.1:7777')
    .option('--pull', 'only fetch what this store lacks')
    .option('--push', 'only send what the replica lacks')
    .option('--json', 'print the sync report as JSON (see docs/tik-sync.md)')
    .action(async (url: string, opts: { pull?: boolean; push?: boolean; json?: boolean }) => {
      if (opts.pull && opts.push) throw new TikError('cli/usage', '--pull and --push exclude each other (give neither to do both)', { where: '--pull/--push', hint: 'tik sync URL' });
      const transport = httpTransport(url);
      const store = await openStore(ctx);
      const report = await syncWith(store, transport, {
        direction: opts.pull ? 'pull' : opts.push ? 'push' : 'both',
        onProgress: (line) => ctx.warn(line),
      });
      if (opts.json) ctx.json(report);
      else ctx.out(`synced with ${url}: pulled ${report.pulled}, pushed ${report.pushed} (${report.rounds} round trip(s), ${report.reconcileBytesSent + report.reconcileBytesReceived} reconciliation bytes)`);
    });
}
