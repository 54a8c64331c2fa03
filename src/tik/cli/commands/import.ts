import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/**
 * `tik import <dir|tgz>`: append a file tree's events (with sidecars, blobs and definitions) to the
 * store. Every file is checked first (bytes hash to the name, events parse); if any is wrong,
 * nothing is written. Importing the same tree twice changes nothing.
 */
export function registerImport(verb: Command, ctx: CliContext): void {
  verb
    .argument('<dir|tgz>', 'the tree to import: a directory, or a gzipped tar of one')
    .action(async (dir: string) => {
      const { importTree } = await import('../../store/export-import.js');
      const { openStore } = await import('../store-access.js');
      const store = await openStore(ctx);
      const c = await importTree(ctx.path(dir), store);
      ctx.out(`imported ${c.newEvents} new events (${c.events} in the tree), ${c.sidecars} sidecars and ${c.blobs} blobs of ${c.tickets} tickets`);
    });
}
