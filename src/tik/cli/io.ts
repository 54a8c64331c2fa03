import { userInfo } from 'node:os';

/**
 * Everything the `tik` command takes from its surroundings, injected so that tests can run the
 * command in process with a fixed clock, a fixed environment and captured output.
 */
export interface CliIo {
  /** Write to standard output (JSON and human renderings go here). */
  readonly out: (text: string) => void;
  /** Write to standard error (errors, warnings, progress). */
  readonly err: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Wall clock in epoch milliseconds; overridden by `TIK_NOW` (see `writer-clock.ts`). */
  readonly clock: () => number;
  /** A fresh random v4 uuid for `tik new`. */
  readonly randomUuid: () => string;
  /** The OS user name, the last fallback for the actor. */
  readonly osUser: () => string | undefined;
  /** Whether stdout is a terminal (colour only then). */
  readonly isTty: boolean;
}

/** The real process: stdout, stderr, `process.env`, the cwd and the system clock. */
export function nodeIo(): CliIo {
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    clock: () => Date.now(),
    // the global Web Crypto, loaded on first use: node:crypto stays off the start-up path
    randomUuid: () => globalThis.crypto.randomUUID(),
    osUser: () => {
      try {
        return userInfo().username || undefined;
      } catch {
        return undefined;
      }
    },
    isTty: process.stdout.isTTY === true,
  };
}

/** An in-memory IO for tests and benchmarks: output is collected into strings. */
export function memoryIo(options: {
  env?: Record<string, string | undefined>;
  cwd: string;
  clock?: () => number;
  randomUuid?: () => string;
  osUser?: string;
}): CliIo & { readonly stdout: () => string; readonly stderr: () => string } {
  let stdout = '';
  let stderr = '';
  return {
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
    env: options.env ?? {},
    cwd: options.cwd,
    clock: options.clock ?? (() => Date.now()),
    randomUuid: options.randomUuid ?? (() => globalThis.crypto.randomUUID()),
    osUser: () => options.osUser,
    isTty: false,
    stdout: () => stdout,
    stderr: () => stderr,
  };
}
