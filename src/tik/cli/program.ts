import { Command } from 'commander';
import { packageVersion } from '../../core/version.js';
import type { CliContext } from './context.js';
import { GLOBAL_OPTIONS, HELP_FOOTER, TIK_DESCRIPTION } from './root-command.js';
import { TIK_VERBS, type TikVerb } from './verbs.js';

/**
 * The `tik` commander program with `verbs` (default: all of them; a run passes only the verb it
 * runs, see verbs-for.ts). Each verb's module is imported here, so a run pays for the verbs it
 * uses. Output goes through the context's IO; commander's own exits are turned into exceptions
 * (`exitOverride`) so that `runTik` maps them to exit codes.
 */
export async function buildTikProgram(ctx: CliContext, verbs: readonly TikVerb[] = TIK_VERBS): Promise<Command> {
  const program = new Command('tik').description(TIK_DESCRIPTION).version(packageVersion());
  for (const option of GLOBAL_OPTIONS) program.option(option.flags, option.description);
  program
    .exitOverride()
    .configureOutput({ writeOut: (s) => ctx.io.out(s), writeErr: (s) => ctx.io.err(s) })
    .showHelpAfterError('(run tik --help for usage)')
    .addHelpText('after', HELP_FOOTER);
  ctx.attach(program);
  // With --remote, what the verb wrote goes to the replica once the verb has succeeded.
  program.hook('postAction', async () => {
    if (ctx.globals().remote) await (await import('./remote-store.js')).pushRemote(ctx);
  });
  const defines = await Promise.all(verbs.map((verb) => verb.load()));
  verbs.forEach((verb, i) => defines[i]!(program.command(verb.name).description(verb.summary), ctx));
  return program;
}
