import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/** `tik init [--hidden] [--sqlite]`: create an empty file store (or SQLite store) at the root. */
export function registerInit(verb: Command, ctx: CliContext): void {
  verb
    .option('--hidden', 'put the store under <root>/.tik/')
    .option('--sqlite', 'a SQLite store: the log in tik.db (tik-model.md §1.9)')
    .action(async (opts: { hidden?: boolean; sqlite?: boolean }) => {
      const { initFileStore, initSqliteFileStore } = await import('../store-access.js');
      const root = ctx.initRoot();
      const location = opts.sqlite
        ? await initSqliteFileStore(root, { hidden: opts.hidden === true })
        : await initFileStore(root, { hidden: opts.hidden === true });
      ctx.out(`initialised a tik store at ${location}`);
    });
}
