import { isAbsolute, resolve } from 'node:path';
import type { Command } from 'commander';
import { TikError } from '../errors.js';
import type { CliIo } from './io.js';
import { discoverStoreRoot } from './store-access.js';

/** The global options every verb sees (`tik --root DIR --actor A <verb> …`). */
export interface GlobalOptions {
  readonly root?: string;
  readonly actor?: string;
  /** `--remote URL`: mint here, push to that replica (see remote-store.ts). */
  readonly remote?: string;
}

/**
 * What a verb needs from the run: the IO, the global options, and a place to record a non-zero exit code (a verb that "ran fine but found failures", like `test`/`verify`).
 */
export class CliContext {
  exitCode = 0;
  private program: Command | undefined;

  constructor(readonly io: CliIo) {}

  attach(program: Command): void {
    this.program = program;
  }

  globals(): GlobalOptions {
    return (this.program?.opts() ?? {}) as GlobalOptions;
  }

  /** Resolve a path argument against the working directory. */
  path(p: string): string {
    return isAbsolute(p) ? p : resolve(this.io.cwd, p);
  }

  /** The store root: `--root` › `TIK_ROOT` › the nearest ancestor holding a store › the cwd. */
  root(): string {
    const flag = this.globals().root;
    if (flag !== undefined && flag !== '') return this.path(flag);
    return discoverStoreRoot(this.io.cwd, this.io.env);
  }

  /** The root `init` creates: `--root` › `TIK_ROOT` › the cwd (no discovery). */
  initRoot(): string {
    const flag = this.globals().root ?? this.io.env.TIK_ROOT;
    return flag !== undefined && flag !== '' ? this.path(flag) : this.io.cwd;
  }

  /** Who is acting: `--actor` › `TIK_ACTOR` › the OS user. */
  actor(): string {
    const a = this.globals().actor ?? this.io.env.TIK_ACTOR ?? this.io.osUser();
    if (a === undefined || a === '') {
      throw new TikError('cli/usage', 'no actor: pass --actor, set TIK_ACTOR, or run as a named OS user', {
        where: '--actor',
        hint: 'e.g. tik --actor seb set <id> category=technical',
      });
    }
    return a;
  }

  /** `--actor` exactly as given on the command line (a filter for explain/next), else undefined. */
  actorFilter(): string | undefined {
    return this.globals().actor;
  }

  out(text: string): void {
    this.io.out(text.endsWith('\n') ? text : `${text}\n`);
  }

  warn(text: string): void {
    this.io.err(`tik: ${text}\n`);
  }

  /** Print a JSON document (stable shapes, documented in docs/tik.md). */
  json(value: unknown): void {
    this.io.out(`${JSON.stringify(value, null, 2)}\n`);
  }

  fail(code = 1): void {
    this.exitCode = Math.max(this.exitCode, code);
  }
}
