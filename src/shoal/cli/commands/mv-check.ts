import { type Command, Option } from 'commander';
import { type MvConsistencyTier, admitMaterializedView } from '../../sql/index.js';

/** What `shoal mv check` prints with --json: the admission verdict. */
export interface MvCheckResult {
  readonly ok: boolean;
  readonly reason: string;
  readonly consistency: MvConsistencyTier;
  readonly deterministic: boolean;
}

/** The check behind the command: exit 0 when admitted, 3 when rejected. */
export function mvCheck(sql: string, consistency: MvConsistencyTier): { readonly result: MvCheckResult; readonly exitCode: 0 | 3 } {
  const a = admitMaterializedView(consistency, sql);
  // an empty --sql is not a join-pattern MV here: there is nothing to check, so fail closed
  const admission = sql.trim() === '' ? { ok: false, deterministic: false, reason: 'view_sql cannot be parsed (no SQL was given)' } : a;
  return {
    result: { ok: admission.ok, reason: admission.reason, consistency, deterministic: admission.deterministic },
    exitCode: admission.ok ? 0 : 3,
  };
}

export interface MvCheckIo {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  readonly exit: (code: number) => void;
}

const processIo: MvCheckIo = {
  stdout: (s) => void process.stdout.write(s),
  stderr: (s) => void process.stderr.write(s),
  exit: (code) => void (process.exitCode = code),
};

/**
 * `shoal mv check --sql SQL [--consistency shared|distributed] [--json]`: whether a materialized
 * view's SQL may be registered in that tier (law S4). A `shared` MV is admitted even when
 * non-deterministic (the reason says why it would not be distributable); a `distributed` one must
 * be deterministic. SQL that cannot be parsed fails closed. Exit 0 admitted, 3 rejected, 2 usage.
 */
export function registerMvCheck(program: Command, io: MvCheckIo = processIo): void {
  const mv = program.commands.find((c) => c.name() === 'mv') ?? program.command('mv').description('materialized views');
  mv.command('check')
    .description('check whether a materialized view SQL is admitted in a consistency tier; exit 0 admitted, 3 rejected')
    .requiredOption('--sql <sql>', 'the view SQL')
    .addOption(new Option('--consistency <tier>', 'the MV tier').choices(['shared', 'distributed']).default('shared'))
    .option('--json', 'print {ok, reason, consistency, deterministic} as JSON')
    .action((opts: { sql: string; consistency: MvConsistencyTier; json?: boolean }) => {
      const { result, exitCode } = mvCheck(opts.sql, opts.consistency);
      if (opts.json) io.stdout(`${JSON.stringify(result)}\n`);
      else if (result.ok) io.stdout(`admitted (${result.consistency}): ${result.reason}\n`);
      else io.stderr(`rejected (${result.consistency}): ${result.reason}\n`);
      io.exit(exitCode);
    });
}
