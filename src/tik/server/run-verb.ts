import { memoryIo } from '../cli/io.js';
import { runTik } from '../cli/run.js';

/** The outcome of one CLI verb run inside the server. */
export interface VerbResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface VerbEnv {
  /** The store: a root directory or a `postgresql://` URL (what `tik --root` takes). */
  readonly root: string;
  /** The working directory relative paths resolve against (default: `root`). */
  readonly cwd?: string;
  /** Passed through to the CLI: TIK_KEY (sign writes), TIK_NOW (a fixed clock, for tests), HOME. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly clock?: () => number;
  /** Mints `tik new` ticket ids (a sharded replica mints only ids its shard owns). */
  readonly randomUuid?: () => string;
}

/**
 * Runs a `tik` verb in process against the replica's store: the same commander program, the same
 * JSON shapes as `tik … --json`, writes minted with this replica's clock. Nothing is cached
 * between calls, so every arrival path (sync, a CLI write, a copied file) is seen by the next read.
 */
export async function runVerb(v: VerbEnv, actor: string | undefined, argv: readonly string[]): Promise<VerbResult> {
  const env: Record<string, string | undefined> = { HOME: v.env.HOME, TIK_KEY: v.env.TIK_KEY, TIK_NOW: v.env.TIK_NOW, TIK_ACTOR: v.env.TIK_ACTOR };
  const io = memoryIo({ cwd: v.cwd ?? v.root, env, ...(v.clock ? { clock: v.clock } : {}), ...(v.randomUuid ? { randomUuid: v.randomUuid } : {}), osUser: 'tik-serve' });
  const global = ['--root', v.root, ...(actor !== undefined && actor !== '' ? ['--actor', actor] : [])];
  const code = await runTik([...global, ...argv], io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

/** `{error: {code, message, hint?}}` and an HTTP status from a failed verb's stderr. */
export function verbError(r: VerbResult): { status: number; body: { error: { code: string; message: string; hint?: string } } } {
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  const first = lines.find((l) => l.startsWith('tik: ')) ?? lines[0] ?? 'tik: failed';
  const m = /^tik: ([a-z-]+\/[a-z-]+): (.*)$/.exec(first);
  const hintLine = lines.find((l) => l.trim().startsWith('hint: '));
  const code = m ? m[1]! : r.code === 2 ? 'cli/usage' : 'tik/failed';
  const message = m ? m[2]! : first.replace(/^tik: /, '');
  const status = statusOf(code, r.code);
  return { status, body: { error: { code, message, ...(hintLine ? { hint: hintLine.trim().slice(6) } : {}) } } };
}

/** The HTTP status of a failed verb's error code (400 usage, 404 unknown, 409 ambiguous, else 422). */
export function statusOf(code: string, exitCode = 1): number {
  return exitCode === 2 ? 400 : /not-found|unknown|no-such/.test(code) ? 404 : /ambiguous/.test(code) ? 409 : 422;
}
