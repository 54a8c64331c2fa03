// Concurrent tik processes (the compiled bin) listing and writing one file store: the ls index
// they all rewrite stays whole (every rename is of a complete file), and ls through it still
// answers as ls without it (issue 18).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readDerived } from '../../../src/tik/store/derived-file.js';
import { T0, cleanup, supportStore, tikDist, type RunResult } from './harness.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));

/** One `tik` process, not awaited until the others are started. */
function tikAsync(cwd: string, args: readonly string[], env: Record<string, string> = {}): Promise<RunResult> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [resolve(process.cwd(), 'dist/src/tik/cli/main.js'), ...args], {
      cwd,
      env: { PATH: process.env.PATH, HOME: cwd, TIK_NOW: T0, TIK_ACTOR: 'seb', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', rej);
    child.on('close', (code) => res({ code: code ?? -1, stdout, stderr }));
  });
}

/** The derived-data key the processes made: HOME is the store directory in these runs. */
const keyOf = (home: string): Buffer => Buffer.from(readFileSync(join(home, '.local/state/tik/derived-data.key'), 'utf8').trim(), 'hex');

describe('the ls index under concurrent processes', () => {
  it('stays whole and answers as the log does', async () => {
    const d = await supportStore();
    dirs.push(d);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(tikDist(d, ['new', 'support-request', '--title', `t${i}`]).stdout.trim());
    for (let round = 0; round < 3; round++) {
      const runs = await Promise.all([
        ...[0, 1, 2, 3].map(() => tikAsync(d, ['ls', '--all', '--json'])),
        tikAsync(d, ['set', ids[round]!, 'category=technical', 'severity=high']),
        tikAsync(d, ['--actor', 'customer', 'set', ids[(round + 1) % 4]!, 'customer.ack=true']),
      ]);
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
      expect(await readDerived(join(d, '.tik-index'), 'ls.json', 'tik-ls-index/2', keyOf(d))).toBeDefined();
    }
    expect(readdirSync(join(d, '.tik-index')).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
    const want = tikDist(d, ['ls', '--all', '--json'], { TIK_INDEX: 'off' });
    expect(tikDist(d, ['ls', '--all', '--json'])).toEqual(want);
    expect(tikDist(d, ['ls', '--all', '--json'])).toEqual(want);
  }, 120_000);
  it('is not written, and ls still answers, where no derived-data key can be made (an unwritable state directory)', async () => {
    const d = await supportStore();
    dirs.push(d);
    tikDist(d, ['new', 'support-request', '--title', 'one']);
    const env = { XDG_STATE_HOME: '/proc/no-such-dir' };
    const want = tikDist(d, ['ls', '--all', '--json'], { TIK_INDEX: 'off' });
    expect(tikDist(d, ['ls', '--all', '--json'], env)).toEqual(want);
    expect(existsSync(join(d, '.tik-index', 'ls.json'))).toBe(false);
  }, 60_000);
});
