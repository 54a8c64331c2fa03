import type { Command } from 'commander';
import { TikError } from '../../errors.js';
import type { CliContext } from '../context.js';
import { initFileStore } from '../store-access.js';

/** `tik init [--hidden] [--sqlite]`: create an empty file store at the root. */
export function registerInit(program: Command, ctx: CliContext): void {
  program
    .command('init')
    .description('create an empty store (tickets/, processes/by-hash/) at --root, $TIK_ROOT or the cwd')
    .option('--hidden', 'put the store under <root>/.tik/')
    .option('--sqlite', 'a SQLite store (tik.db); arrives in part 2')
    .action(async (opts: { hidden?: boolean; sqlite?: boolean }) => {
      if (opts.sqlite) {
        throw new TikError('cli/usage', 'the SQLite store arrives in part 2; this build has the file store only', {
          where: '--sqlite',
          hint: 'run tik init without --sqlite for a file store (it is byte-compatible with upstream)',
        });
      }
      const root = ctx.initRoot();
      const location = await initFileStore(root, { hidden: opts.hidden === true });
      ctx.out(`initialised a tik store at ${location}`);
    });
}
