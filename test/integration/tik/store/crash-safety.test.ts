import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, watch } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { distBin } from '../../../support/processes.js';
import { cleanup, supportStore, tik } from '../../../tik/cli/harness.js';

// Issue 13: SIGKILL during `tik new` left an empty ticket directory that made `verify` and `ls`
// fail forever. A real `tik new` is killed the moment its write shows up in tickets/ (inotify),
// which is mid-write; every outcome must be a complete ticket or none, and the next command must
// clear what the killed writer left.

const dirs: string[] = [];
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  dirs.forEach(cleanup);
});

/** Runs `tik new` and SIGKILLs it as soon as anything appears under tickets/. */
function newKilledMidWrite(root: string): Promise<string | null> {
  return new Promise((resolve) => {
    const tickets = join(root, 'tickets');
    const child = spawn(process.execPath, [distBin('tik'), '--root', root, 'new', 'support-request'], { stdio: 'ignore', env: { ...process.env, TIK_ACTOR: 'seb', HOME: root } });
    children.add(child);
    const w = watch(tickets, () => child.kill('SIGKILL'));
    child.once('exit', (_code, signal) => {
      w.close();
      children.delete(child);
      resolve(signal);
    });
  });
}

describe('a killed tik new leaves a complete ticket or nothing', () => {
  it('after SIGKILL mid-write, every ticket directory holds its event, and ls and verify pass', async () => {
    const root = await supportStore();
    dirs.push(root);
    let killed = 0;
    for (let i = 0; i < 6; i++) {
      if ((await newKilledMidWrite(root)) === 'SIGKILL') killed++;
      for (const t of readdirSync(join(root, 'tickets')).filter((n) => !n.startsWith('.tmp-'))) {
        expect(readdirSync(join(root, 'tickets', t, 'events')).some((n) => n.endsWith('.edn'))).toBe(true);
      }
      const ls = await tik(root, ['ls', '--all', '--json']);
      expect(ls.stderr).toBe('');
      expect(ls.code).toBe(0);
      const verify = await tik(root, ['verify']);
      expect(verify.code).toBe(0);
      // the next command cleared the killed writer's temporaries
      expect(readdirSync(join(root, 'tickets')).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
    }
    expect(killed).toBeGreaterThan(0);
    expect(existsSync(join(root, 'tickets'))).toBe(true);
  }, 120_000);
});
