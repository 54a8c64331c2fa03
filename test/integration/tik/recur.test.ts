import { copyFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recurTicketId } from '../../../src/tik/app/recur-period.js';
import { distBin, startServer, type ServerProcess } from '../../support/processes.js';
import { freePort } from '../../support/services.js';
import { CONFORMANCE, cleanup, snapshot, supportStore, tikDist } from '../../tik/cli/harness.js';

// Issue 5 acceptance (scheduler): two `tik serve` replicas on separate stores, a fixed clock
// (TIK_NOW), the same weekly recurrence configured two ways (recurrences.edn, --recur). Each mints
// the period's ticket on its own; the events are byte-identical, so syncing keeps one copy.

const dirs: string[] = [];
const procs: ServerProcess[] = [];
afterAll(async () => {
  for (const p of procs) await p.kill();
  dirs.forEach(cleanup);
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** The event files of a store (name → sha256), read while a server may be writing (temp files skipped, a vanished one retried). */
function eventFiles(dir: string): Record<string, string> {
  if (!existsSync(join(dir, 'tickets'))) return {};
  for (;;) {
    try {
      return Object.fromEntries(Object.entries(snapshot(join(dir, 'tickets'))).filter(([k]) => !k.split('/').some((part) => part.startsWith('.'))).map(([k, v]) => [`tickets/${k}`, v]));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
}

async function trackStore(): Promise<string> {
  const dir = await supportStore();
  dirs.push(dir);
  copyFileSync(join(CONFORMANCE, 'processes/track.edn'), join(dir, 'processes/track.edn'));
  return dir;
}

describe('tik serve recurrence scheduler (real processes)', () => {
  it('two replicas with a fixed clock mint the same period ticket byte for byte; sync keeps one copy', async () => {
    expect(existsSync(distBin('tik')), 'build first: npm run build').toBe(true);
    const [a, b] = [await trackStore(), await trackStore()];
    writeFileSync(join(a, 'recurrences.edn'), '[{:process :track :cadence :weekly :actor "tik-backend"}]\n');
    const env = { PATH: process.env.PATH, TIK_NOW: '2026-07-15T09:30:00Z' };
    const [pa, pb] = [await freePort(), await freePort()];
    const ra = await startServer(['--root', a, 'serve', '--port', String(pa), '--recur-interval', '0.2'], { cwd: a, port: pa, system: 'tik', readyPath: '/health', env: { ...env, HOME: a } });
    procs.push(ra);
    const rb = await startServer(['--root', b, '--actor', 'tik-backend', 'serve', '--port', String(pb), '--recur', 'track=weekly', '--recur-interval', '0.2'], {
      cwd: b,
      port: pb,
      system: 'tik',
      readyPath: '/health',
      env: { ...env, HOME: b },
    });
    procs.push(rb);

    const ticket = recurTicketId('track', '2026-W29');
    for (const dir of [a, b]) {
      const end = Date.now() + 60_000;
      while (Object.keys(eventFiles(dir)).length < 2) {
        if (Date.now() > end) throw new Error(`no recur ticket in ${dir}:\n${ra.output()}\n${rb.output()}`);
        await sleep(100);
      }
    }
    const before = eventFiles(a);
    expect(Object.keys(before)).toHaveLength(2);
    expect(Object.keys(before).every((f) => f.startsWith(`tickets/${ticket}/events/sha256-`))).toBe(true);
    expect(eventFiles(b)).toEqual(before);
    expect(ra.output()).toMatch(/scheduling track weekly as tik-backend/);

    // sync B's store with replica A: nothing to move, one copy of each event on both sides
    const sync = tikDist(b, ['--root', b, 'sync', ra.url, '--json']);
    expect(sync.code, sync.stderr).toBe(0);
    expect(JSON.parse(sync.stdout)).toMatchObject({ need: 0, have: 0, pulled: 0, pushed: 0 });
    expect(eventFiles(a)).toEqual(before);
    expect(eventFiles(b)).toEqual(before);
    const status = await (await fetch(`${rb.url}/api/status/${ticket}`)).json();
    expect(status).toMatchObject({ ticket, title: 'track 2026-W29', facts: { period: { status: 'present', value: '"2026-W29"' } } });
  }, 120_000);
});
