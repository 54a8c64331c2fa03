import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/** `tik export <dir>`: write the store (any backend) as a file tree in upstream's layout. */
export function registerExport(verb: Command, ctx: CliContext): void {
  verb
    .argument('<dir>', 'the directory to write')
    .action(async (dir: string) => {
      const { exportStore } = await import('../../store/export-import.js');
      const { openStore } = await import('../store-access.js');
      const store = await openStore(ctx);
      const c = await exportStore(store, ctx.path(dir));
      ctx.out(`exported ${c.events} events (${c.newEvents} new), ${c.sidecars} sidecars and ${c.blobs} blobs of ${c.tickets} tickets to ${ctx.path(dir)}`);
    });
}
