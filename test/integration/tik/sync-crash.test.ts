import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseEvent } from '../../../src/tik/kernel/index.js';
import { buildTikServer } from '../../../src/tik/server/index.js';
import { FileStore } from '../../../src/tik/store/file/file-store.js';
import type { EventStore } from '../../../src/tik/store/store.js';
import { distBin } from '../../support/processes.js';
import { cleanup, supportStore, tik } from '../../tik/cli/harness.js';
import { chainEvents } from '../../tik/sync/chain-events.js';

// Issue 18: the receiver writes each ticket's events of a transfer as one batch (written and
// flushed aside, moved into place in order, the directory flushed once). A real `tik sync`
// process is SIGKILLed while it moves a batch into place: what it left must verify (every stored
// event whole, its parents stored), and the next sync must complete the store.

const dirs: string[] = [];
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  dirs.forEach(cleanup);
});

const TICKETS = [0, 1, 2].map((n) => `018f2f6e-7c1a-7000-8000-${n.toString(16).padStart(12, '0')}`);
const EVENTS = 600;
const ALREADY = 50;

/** Each ticket: a create, then a chain of asserts (the first `ALREADY` also written to `early`). */
async function writeChains(store: EventStore, early: EventStore): Promise<void> {
  for (const ticket of TICKETS) {
    for (const [i, e] of chainEvents(ticket, EVENTS, { process: 'support-request' }).entries()) {
      await store.append(ticket, e.id, e.bytes);
      if (i < ALREADY) await early.append(ticket, e.id, e.bytes);
    }
  }
}

const stored = (root: string, ticket: string): string[] => {
  try {
    return readdirSync(join(root, 'tickets', ticket, 'events')).filter((n) => /^sha256-[0-9a-f]{64}\.edn$/.test(n));
  } catch {
    return [];
  }
};

/** Every stored event's parents are stored: a parent-closed set. */
async function parentClosed(store: EventStore, ticket: string): Promise<boolean> {
  const events = await store.events(ticket);
  const ids = new Set(events.map((e) => e.id));
  return events.every((e) => parseEvent(Buffer.from(e.bytes).toString('utf8'), e.id).parents.every((p) => ids.has(p)));
}

/** Runs `tik sync URL --pull` into `root` and SIGKILLs it when a ticket's first event of the batch is moved into place. */
function syncKilledMidBatch(root: string, url: string): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [distBin('tik'), '--root', root, 'sync', url, '--pull'], { stdio: 'ignore', env: { ...process.env, HOME: root } });
    children.add(child);
    const before = new Map(TICKETS.map((t) => [t, stored(root, t).length] as const));
    const watchers: FSWatcher[] = TICKETS.map((t) =>
      watch(join(root, 'tickets', t, 'events'), (_e, name) => {
        // a final name (not a temporary) that was not there: the batch is being moved into place
        if (name !== null && /^sha256-[0-9a-f]{64}\.edn$/.test(name) && stored(root, t).length > before.get(t)!) child.kill('SIGKILL');
      }),
    );
    child.once('exit', (_code, signal) => {
      watchers.forEach((w) => w.close());
      children.delete(child);
      resolve(signal);
    });
  });
}

describe('a receiver killed mid-batch leaves a store that verifies, and the next sync completes it', () => {
  it('SIGKILL while a batch is moved into place: parent-closed prefixes, verify passes, a re-sync brings the rest', async () => {
    const src = await supportStore();
    const dst = await supportStore();
    dirs.push(src, dst);
    const source = new FileStore(src, { durable: false });
    const target = new FileStore(dst, { durable: false });
    await writeChains(source, target);
    const server = await buildTikServer({ root: src, store: source });
    const url = await server.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      let killed = 0;
      let partial = 0;
      for (let round = 0; round < 4; round++) {
        const signal = await syncKilledMidBatch(dst, url);
        if (signal !== 'SIGKILL') break;
        killed++;
        // a batch cut between its first and its last event
        if (TICKETS.some((t) => stored(dst, t).length > ALREADY && stored(dst, t).length < EVENTS)) partial++;
        for (const t of TICKETS) expect(await parentClosed(target, t)).toBe(true);
        const verify = await tik(dst, ['verify']);
        expect(verify.stderr + verify.stdout).not.toMatch(/missing-parent|hash-mismatch|malformed/);
        expect(verify.code, verify.stdout + verify.stderr).toBe(0);
      }
      expect(killed).toBeGreaterThan(0);
      expect(partial).toBeGreaterThan(0);

      const resync = await tik(dst, ['sync', url, '--pull', '--json']);
      expect(resync.code).toBe(0);
      for (const t of TICKETS) expect(stored(dst, t).sort()).toEqual(stored(src, t).sort());
      // what the killed writers left aside (a .tmp- directory) is gone once the store is listed again
      for (const t of TICKETS) {
        await target.events(t);
        expect(readdirSync(join(dst, 'tickets', t, 'events')).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
      }
      expect((await tik(dst, ['verify'])).code).toBe(0);
    } finally {
      await server.close();
    }
  }, 300_000);
});
