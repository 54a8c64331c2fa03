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

/** Runs `tik store migrate --to sqlite` in place and SIGKILLs it when tik.db appears. */
function migrateKilledMidCopy(root: string): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [distBin('tik'), '--root', root, 'store', 'migrate', '--to', 'sqlite'], { stdio: 'ignore', env: { ...process.env, HOME: root } });
    children.add(child);
    const w = watch(root, (_e, name) => {
      if (name === 'tik.db' || name === 'tik.db-wal') child.kill('SIGKILL');
    });
    child.once('exit', (_code, signal) => {
      w.close();
      children.delete(child);
      resolve(signal);
    });
  });
}

describe('a killed in-place migration is resumed or rolled back by the next command', () => {
  it('after SIGKILL mid-copy, the store opens (one backend), lists every ticket, and the migration can be run again', async () => {
    const root = await supportStore();
    dirs.push(root);
    for (let i = 0; i < 40; i++) expect((await tik(root, ['new', 'support-request', '--title', `t${i}`])).code).toBe(0);
    const before = (await tik(root, ['ls', '--all', '--json'])).stdout;
    expect(await migrateKilledMidCopy(root)).toBe('SIGKILL');
    expect(existsSync(join(root, '.tik-migrate.json'))).toBe(true); // the journal says what to do
    const after = await tik(root, ['ls', '--all', '--json']);
    expect(after.stderr).toBe('');
    expect(after.code).toBe(0);
    expect(after.stdout).toBe(before);
    expect(existsSync(join(root, '.tik-migrate.json'))).toBe(false);
    // exactly one backend is left: rolled back (the copy was not finished)
    expect([existsSync(join(root, 'tik.db')), existsSync(join(root, 'tickets'))]).toEqual([false, true]);
    const again = await tik(root, ['store', 'migrate', '--to', 'sqlite']);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect((await tik(root, ['ls', '--all', '--json'])).stdout).toBe(before);
    expect([existsSync(join(root, 'tik.db')), existsSync(join(root, 'tickets'))]).toEqual([true, false]);
  }, 180_000);
});
