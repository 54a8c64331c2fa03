import { Command } from 'commander';
import { packageVersion } from '../../core/version.js';
import type { CliContext } from './context.js';
import { registerActor } from './commands/actor.js';
import { registerAttach } from './commands/attach.js';
import { registerAttest } from './commands/attest.js';
import { registerComment } from './commands/comment.js';
import { registerDiff } from './commands/diff.js';
import { registerDispute } from './commands/dispute.js';
import { registerExplain } from './commands/explain.js';
import { registerInit } from './commands/init.js';
import { registerLint } from './commands/lint.js';
import { registerLog } from './commands/log.js';
import { registerLs } from './commands/ls.js';
import { registerSearch } from './commands/search.js';
import { registerCausal } from './commands/causal.js';
import { registerBoard } from './commands/board.js';
import { registerPlan } from './commands/plan.js';
import { registerReprocess } from './commands/reprocess.js';
import { registerWhatif } from './commands/whatif.js';
import { registerNew } from './commands/new.js';
import { registerNext } from './commands/next.js';
import { registerRecur } from './commands/recur.js';
import { registerProbe } from './commands/probe.js';
import { registerRetract } from './commands/retract.js';
import { registerRoles } from './commands/roles.js';
import { registerServe } from './commands/serve.js';
import { registerSet } from './commands/set.js';
import { registerProcess } from './commands/process.js';
import { registerSign } from './commands/sign.js';
import { registerStatus } from './commands/status.js';
import { registerSync } from './commands/sync.js';
import { registerTest } from './commands/test.js';
import { registerVerify } from './commands/verify.js';
import { registerWitness } from './commands/witness.js';
import { registerRoot } from './commands/root.js';
import { registerStoreMigrate } from './commands/store-migrate.js';
import { registerExport } from './commands/export.js';
import { registerImport } from './commands/import.js';

/**
 * The `tik` commander program. Output goes through the context's IO; commander's own exits are
 * turned into exceptions (`exitOverride`) so that `runTik` maps them to exit codes.
 */
export function buildTikProgram(ctx: CliContext): Command {
  const program = new Command('tik')
    .description('tik: tickets as append-only sets of content-addressed events; stages are derived, never stored')
    .version(packageVersion())
    .option('--root <dir>', 'the store root (default: $TIK_ROOT, else the nearest ancestor holding a store, else the cwd)')
    .option('--actor <name>', 'who is acting (default: $TIK_ACTOR, else the OS user); for explain/next also a filter')
    .option('--remote <url>', 'work against a tik serve replica: pull it, run the verb here (TIK_KEY signs), push what was written (TIK_TOKEN authenticates)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => ctx.io.out(s), writeErr: (s) => ctx.io.err(s) })
    .showHelpAfterError('(run tik --help for usage)')
    .addHelpText(
      'after',
      '\nEnvironment: TIK_ROOT (store root), TIK_ACTOR (actor), TIK_NOW (fix the clock, for tests), TIK_KEY (sign writes), TIK_TOKEN (bearer token for a replica).\nExit codes: 0 success, 1 failure, 2 usage error.',
    );
  ctx.attach(program);
  // With --remote, what the verb wrote goes to the replica once the verb has succeeded.
  program.hook('postAction', async () => {
    if (ctx.globals().remote) await (await import('./remote-store.js')).pushRemote(ctx);
  });
  for (const register of [
    registerInit,
    registerNew,
    registerSet,
    registerRetract,
    registerDispute,
    registerAttach,
    registerComment,
    registerAttest,
    registerRecur,
    registerProbe,
    registerReprocess,
    registerRoles,
    registerStatus,
    registerExplain,
    registerLog,
    registerDiff,
    registerCausal,
    registerWhatif,
    registerNext,
    registerLs,
    registerSearch,
    registerBoard,
    registerPlan,
    registerLint,
    registerTest,
    registerVerify,
    registerSign,
    registerWitness,
    registerRoot,
    registerProcess,
    registerActor,
    registerServe,
    registerSync,
    registerStoreMigrate,
    registerExport,
    registerImport,
  ]) {
    register(program, ctx);
  }
  return program;
}
