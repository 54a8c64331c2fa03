import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterEach } from 'vitest';
import { memoryIo } from '../../../src/tik/cli/io.js';
import { runTik } from '../../../src/tik/cli/run.js';

/** Upstream's conformance data, read in place. */
export const CONFORMANCE = resolve(process.cwd(), '../shared/tik-conformance');

/** The fixed clock every CLI test runs at (TIK_NOW). */
export const T0 = '2026-07-08T10:00:00Z';

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run `tik` in process (the same commander program the bin runs) against a directory. */
let uuidCounter = 0;

export async function tik(cwd: string, args: readonly string[], env: Record<string, string | undefined> = {}): Promise<RunResult> {
  const io = memoryIo({
    cwd,
    env: { TIK_NOW: T0, TIK_ACTOR: 'seb', HOME: cwd, ...env },
    osUser: 'os-user',
    randomUuid: () => `0b0e5d1c-0000-4000-8000-${String(++uuidCounter).padStart(12, '0')}`,
  });
  const code = await runTik(args, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

/** Run the compiled bin (`node dist/src/tik/cli/main.js`), as users and outside checks do. */
export function tikDist(cwd: string, args: readonly string[], env: Record<string, string | undefined> = {}): RunResult {
  const r = spawnSync(process.execPath, [resolve(process.cwd(), 'dist/src/tik/cli/main.js'), ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: cwd, TIK_NOW: T0, TIK_ACTOR: 'seb', ...env },
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** A fresh temp directory; remove it with `cleanup`. */
export function tempDir(prefix = 'tik-cli-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function cleanup(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** A temp store with upstream's support-request process and roles register. */
export async function supportStore(): Promise<string> {
  const dir = tempDir();
  const r = await tik(dir, ['init']);
  if (r.code !== 0) throw new Error(`init failed: ${r.stderr}`);
  copyFileSync(join(CONFORMANCE, 'processes/support-request.edn'), join(dir, 'processes/support-request.edn'));
  copyFileSync(join(CONFORMANCE, 'roles.edn'), join(dir, 'roles.edn'));
  return dir;
}

/**
 * Temporary directories of one test file, each removed after the test that made it. Call once at
 * the top level of the file (it registers an `afterEach`).
 */
export function scratchDirs(): { dir: (prefix?: string) => string; supportStore: () => Promise<string> } {
  const dirs: string[] = [];
  afterEach(() => {
    while (dirs.length > 0) cleanup(dirs.pop()!);
  });
  const keep = (d: string): string => (dirs.push(d), d);
  return { dir: (prefix) => keep(tempDir(prefix)), supportStore: async () => keep(await supportStore()) };
}

/** Every file under `dir` with the SHA-256 of its bytes: compare before/after to prove nothing was written. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

/** Event files of a ticket (names only). */
export function eventFiles(dir: string, ticket: string): string[] {
  return readdirSync(join(dir, 'tickets', ticket, 'events'))
    .filter((f) => f.endsWith('.edn'))
    .sort();
}

/** Parse the JSON a `--json` verb printed. */
export function json<T = Record<string, unknown>>(r: RunResult): T {
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}
