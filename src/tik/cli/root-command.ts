/**
 * The `tik` command itself (as opposed to its verbs): its description, global options, help
 * footer and exit codes. Shared by the commander program (program.ts) and by the root help that
 * is printed without loading commander (root-help.ts), so the two cannot drift apart.
 */

/** Exit codes of the `tik` command. */
export const EXIT = Object.freeze({ ok: 0, failure: 1, usage: 2 });

export const TIK_DESCRIPTION = 'tik: tickets as append-only sets of content-addressed events; stages are derived, never stored';

/** A global option: `flags` as commander takes them (`--name <value>`). */
export interface GlobalOption {
  readonly flags: string;
  readonly description: string;
}

/** The options every verb sees (`tik --root DIR --actor A <verb> …`); each takes a value. */
export const GLOBAL_OPTIONS: readonly GlobalOption[] = [
  { flags: '--root <dir>', description: 'the store root (default: $TIK_ROOT, else the nearest ancestor holding a store, else the cwd)' },
  { flags: '--actor <name>', description: 'who is acting (default: $TIK_ACTOR, else the OS user); for explain/next also a filter' },
  { flags: '--remote <url>', description: 'work against a tik serve replica: pull it, run the verb here (TIK_KEY signs), push what was written (TIK_TOKEN authenticates)' },
];

/** Printed after the root help. */
export const HELP_FOOTER =
  '\nEnvironment: TIK_ROOT (store root), TIK_ACTOR (actor), TIK_NOW (fix the clock, for tests), TIK_KEY (sign writes), TIK_TOKEN (bearer token for a replica).\nExit codes: 0 success, 1 failure, 2 usage error.';
