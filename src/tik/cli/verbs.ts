import type { Command } from 'commander';
import type { CliContext } from './context.js';

/**
 * Fills in a verb's command: its arguments, options, action and subcommands. The command already
 * carries the verb's name and summary from the table below.
 */
export type DefineVerb = (verb: Command, ctx: CliContext) => void;

/**
 * One `tik` verb as `tik --help` lists it. The implementation is imported only when the verb runs
 * (issue 18): `tik --help` is printed from this table alone, and `tik <verb> …` loads one module.
 */
export interface TikVerb {
  readonly name: string;
  /**
   * What `tik --help` shows after the name, as commander writes it: `[options]` when the verb has
   * options of its own, then its arguments (`<required>`, `[optional]`, `<many...>`); empty for a
   * group of subcommands. test/tik/cli/root-help.test.ts checks it against the command.
   */
  readonly synopsis: string;
  readonly summary: string;
  readonly load: () => Promise<DefineVerb>;
}

/** Every verb, in the order `tik --help` lists them. Adding a verb is adding an entry here. */
export const TIK_VERBS: readonly TikVerb[] = [
  {
    name: 'init',
    synopsis: '[options]',
    summary: 'create an empty store (tickets/, processes/by-hash/) at --root, $TIK_ROOT or the cwd',
    load: async () => (await import('./commands/init.js')).registerInit,
  },
  {
    name: 'new',
    synopsis: '[options] <process>',
    summary: 'open a ticket following a process (processes/<process>.edn)',
    load: async () => (await import('./commands/new.js')).registerNew,
  },
  {
    name: 'set',
    synopsis: '[options] <ticket> <assignments...>',
    summary: 'assert facts: key=value (dotted keys; a value is EDN if it parses, a bare word a keyword, else a string)',
    load: async () => (await import('./commands/set.js')).registerSet,
  },
  {
    name: 'retract',
    synopsis: '[options] <ticket> <key>',
    summary: 'withdraw a fact without replacement',
    load: async () => (await import('./commands/retract.js')).registerRetract,
  },
  {
    name: 'dispute',
    synopsis: '[options] <ticket> <key>',
    summary: 'dispute a fact, or withdraw your disputes on it',
    load: async () => (await import('./commands/dispute.js')).registerDispute,
  },
  {
    name: 'attach',
    synopsis: '[options] <ticket> <file>',
    summary: 'attach a file as an artifact (stored by hash under the ticket)',
    load: async () => (await import('./commands/attach.js')).registerAttach,
  },
  {
    name: 'comment',
    synopsis: '[options] <ticket> <text...>',
    summary: 'add a comment (a text blob attached at comment/<instant>)',
    load: async () => (await import('./commands/comment.js')).registerComment,
  },
  {
    name: 'attest',
    synopsis: '[options] <ticket> <claim>',
    summary: 'record an attestation {:claim <claim> …}',
    load: async () => (await import('./commands/attest.js')).registerAttest,
  },
  {
    name: 'recur',
    synopsis: '[options] <process>',
    summary: 'open the ticket of one period of a recurring process (deterministic id and instant)',
    load: async () => (await import('./commands/recur.js')).registerRecur,
  },
  {
    name: 'probe',
    synopsis: '[options] [ticket]',
    summary: "derive facts from the world: run each repository ticket's probe and assert what changed",
    load: async () => (await import('./commands/probe.js')).registerProbe,
  },
  {
    name: 'reprocess',
    synopsis: '[options] <ticket> <definition>',
    summary: 're-pin a ticket to a new definition of its process (dry run unless --apply)',
    load: async () => (await import('./commands/reprocess.js')).registerReprocess,
  },
  {
    name: 'roles',
    synopsis: '',
    summary: 'the roles register in effect, and replicating roles.edn to every replica',
    load: async () => (await import('./commands/roles.js')).registerRoles,
  },
  {
    name: 'status',
    synopsis: '[options] <ticket>',
    summary: 'the derived stage, facts and what is missing (derived on read, never stored)',
    load: async () => (await import('./commands/status.js')).registerStatus,
  },
  {
    name: 'explain',
    synopsis: '[options] <ticket>',
    summary: 'why each next stage is not reached yet, and who can supply what is missing',
    load: async () => (await import('./commands/explain.js')).registerExplain,
  },
  {
    name: 'log',
    synopsis: '[options] <ticket>',
    summary: 'the events in order (at, id), with the stages each one newly derived',
    load: async () => (await import('./commands/log.js')).registerLog,
  },
  {
    name: 'diff',
    synopsis: '[options] <ticket> [k]',
    summary: 'stages gained and lost and facts changed by the last k events (default 1)',
    load: async () => (await import('./commands/diff.js')).registerDiff,
  },
  {
    name: 'causal',
    synopsis: '[options] <ticket>',
    summary: 'which events made each reached stage true (the evidence behind each guard)',
    load: async () => (await import('./commands/causal.js')).registerCausal,
  },
  {
    name: 'whatif',
    synopsis: '[options] <ticket> <steps...>',
    summary: 'counterfactual: which stages would derive after hypothetical steps (k=v, retract:k, +PT48H); nothing is written',
    load: async () => (await import('./commands/whatif.js')).registerWhatif,
  },
  {
    name: 'next',
    synopsis: '[options]',
    summary: 'what to do next across tickets, ranked by what it unlocks (--actor keeps what that actor may do)',
    load: async () => (await import('./commands/next.js')).registerNext,
  },
  {
    name: 'ls',
    synopsis: '[options]',
    summary: 'list tickets and their current stages (settled tickets only with --all)',
    load: async () => (await import('./commands/ls.js')).registerLs,
  },
  {
    name: 'search',
    synopsis: '[options] <words...>',
    summary: 'every ticket (settled too) whose title and facts contain every word; sugar for ls --all --where "~w1 ~w2"',
    load: async () => (await import('./commands/search.js')).registerSearch,
  },
  {
    name: 'board',
    synopsis: '[options] [file]',
    summary: 'the whole board as one self-contained HTML file (a column per stage, facts, what each ticket misses)',
    load: async () => (await import('./commands/board.js')).registerBoard,
  },
  {
    name: 'plan',
    synopsis: '[options] [file]',
    summary: 'the depends-on roadmap: ready, blocked, done, cycles, the critical path, what each ticket unlocks',
    load: async () => (await import('./commands/plan.js')).registerPlan,
  },
  {
    name: 'lint',
    synopsis: '[options] <file>',
    summary: 'check a process definition: errors fail, warnings are advice',
    load: async () => (await import('./commands/lint.js')).registerLint,
  },
  {
    name: 'test',
    synopsis: '[options] [files...]',
    summary: 'run scripted tests (*.tests.edn) against their process definitions',
    load: async () => (await import('./commands/test.js')).registerTest,
  },
  {
    name: 'verify',
    synopsis: '[options] [ticket]',
    summary: 'check every ticket (or one): bytes and names (L0), signatures (L1), pinned definition and derivation (L2)',
    load: async () => (await import('./commands/verify.js')).registerVerify,
  },
  {
    name: 'sign',
    synopsis: '[options] [ticket]',
    summary: "sign the current actor's own unsigned events with an Ed25519 key",
    load: async () => (await import('./commands/sign.js')).registerSign,
  },
  {
    name: 'witness',
    synopsis: '[options] <ticket>',
    summary: 'countersign the head(s) of a ticket: one signature timestamps the entire ancestry',
    load: async () => (await import('./commands/witness.js')).registerWitness,
  },
  {
    name: 'root',
    synopsis: '[options]',
    summary: 'one hash committing to the entire store; --witness countersigns it',
    load: async () => (await import('./commands/root.js')).registerRoot,
  },
  {
    name: 'process',
    synopsis: '',
    summary: 'publish process definitions',
    load: async () => (await import('./commands/process.js')).registerProcess,
  },
  {
    name: 'actor',
    synopsis: '',
    summary: 'manage the actors file (who may sign as whom)',
    load: async () => (await import('./commands/actor.js')).registerActor,
  },
  {
    name: 'serve',
    synopsis: '[options]',
    summary: 'serve this store (or one shard of it) as a writable HTTP replica (read/write API, sync, board), sync with peers, and open scheduled recurrences',
    load: async () => (await import('./commands/serve.js')).registerServe,
  },
  {
    name: 'fleet',
    synopsis: '',
    summary: 'run N replicas on this machine behind HAProxy (fleet up|status|down; docs/operations.md)',
    load: async () => (await import('./commands/fleet.js')).registerFleet,
  },
  {
    name: 'sync',
    synopsis: '[options] <url>',
    summary: 'sync this store with a tik serve replica (range-based reconciliation, then pull and push; with a sharded replica, only its shard)',
    load: async () => (await import('./commands/sync.js')).registerSync,
  },
  {
    name: 'store',
    synopsis: '',
    summary: 'store administration: migrate between backends',
    load: async () => (await import('./commands/store-migrate.js')).registerStoreMigrate,
  },
  {
    name: 'export',
    synopsis: '<dir>',
    summary: 'write the store as a file tree (tickets/, processes/, …) at DIR; adds to an existing tree',
    load: async () => (await import('./commands/export.js')).registerExport,
  },
  {
    name: 'import',
    synopsis: '<dir|tgz>',
    summary: 'append the events, sidecars and blobs of a file tree (as tik export writes) to the store',
    load: async () => (await import('./commands/import.js')).registerImport,
  },
];
