import { CommanderError } from 'commander';
import { isCodedError } from '../../core/errors.js';
import type { CliIo } from './io.js';
import { CliContext } from './context.js';
import { buildTikProgram } from './program.js';
import { EXIT } from './root-command.js';
import { closeRunStores } from './store-access.js';
import { outcomeOf } from '../app/error-table.js';
import { warningsBefore } from '../app/warnings-before.js';
import { verbsFor } from './verbs-for.js';

/**
 * Run the `tik` command with `argv` (the arguments after the program name) against `io`.
 * Returns the exit code; never throws and never prints a stack trace for bad input.
 */
export async function runTik(argv: readonly string[], io: CliIo): Promise<number> {
  const ctx = new CliContext(io);
  try {
    const program = await buildTikProgram(ctx, verbsFor(argv));
    await program.parseAsync([...argv], { from: 'user' });
    return ctx.exitCode;
  } catch (e) {
    if (e instanceof CommanderError) {
      // commander has already printed its message through configureOutput.
      // An explicit --help or --version succeeds; help shown because no verb was given is a usage error.
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return EXIT.ok;
      return EXIT.usage;
    }
    for (const w of warningsBefore(e)) io.err(`tik: ${w}\n`);
    if (isCodedError(e)) {
      io.err(`tik: ${e.describe()}\n`);
      return outcomeOf(e.code).exit; // the one table: 2 for "the command line was wrong", else 1
    }
    const message = e instanceof Error ? e.message : String(e);
    io.err(`tik: internal error: ${message}\n`);
    if (io.env.TIK_DEBUG && e instanceof Error && e.stack) io.err(`${e.stack}\n`);
    else io.err('  hint: this is a bug in tik; set TIK_DEBUG=1 to see where it happened\n');
    return EXIT.failure;
  } finally {
    await closeRunStores(ctx); // SQL stores hold connections
  }
}
