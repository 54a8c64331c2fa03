import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import type { RootStamper } from '../app/countersign.js';
import { TikError } from '../errors.js';

/**
 * `tik root --anchor`, as upstream: a light integration with the external `ots` tool
 * (opentimestamps-client), run if and only if it is installed. tik ships no timestamping code;
 * the proof is one more detached endorsement, kept beside root witnesses.
 */

/** The first executable `ots` on `PATH`, or undefined. */
async function findOts(path: string | undefined): Promise<string | undefined> {
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue; // a relative entry would run whatever the store holds
    const file = join(dir, 'ots');
    try {
      await access(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * A stamper running `ots stamp <root>.edn` in a private temporary directory over the document's
 * bytes, returning the `<root>.edn.ots` it writes. Throws `root/anchor-unavailable` (before
 * anything is written) when no `ots` is on `PATH`.
 */
export async function otsStamper(env: Readonly<Record<string, string | undefined>>): Promise<RootStamper> {
  const ots = await findOts(env.PATH);
  if (ots === undefined) {
    throw new TikError('root/anchor-unavailable', '--anchor needs the external `ots` tool (opentimestamps-client) — entirely optional; everything else works without it', {
      where: '--anchor',
      hint: 'install it (pip install opentimestamps-client) so `ots` is on PATH, or leave out --anchor; nothing was written',
    });
  }
  return async (document, root) => {
    const dir = await mkdtemp(join(tmpdir(), 'tik-anchor-'));
    try {
      const file = join(dir, `${root}.edn`);
      await writeFile(file, document);
      const run = await runOts(ots, ['stamp', file], dir, env);
      const proof = run.status === 0 ? await readFile(`${file}.ots`).catch(() => undefined) : undefined;
      if (proof === undefined) {
        const why = (run.stderr.trim() || run.stdout.trim() || (run.status === 0 ? 'ots wrote no proof' : `exit ${run.status ?? 'by signal'}`)).slice(0, 2000);
        throw new TikError('root/anchor-failed', `anchor failed (calendars unreachable?): ${why}`, {
          where: '--anchor',
          hint: 'nothing was written; run tik root --anchor again when the calendars answer',
        });
      }
      return new Uint8Array(proof);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
}

function runOts(ots: string, args: readonly string[], cwd: string, env: Readonly<Record<string, string | undefined>>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const child = spawn(ots, args, { cwd, env: { ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', (e) => resolvePromise({ status: null, stdout: '', stderr: `cannot run ${ots}: ${e.message}` }));
    child.on('close', (code) => resolvePromise({ status: code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}
