import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, supportStore, tik } from '../../tik/cli/harness.js';

// End to end with real processes (issue 5 acceptance): three `tik serve` replicas on loopback, each
// on its own store, take writes on all three; one is SIGKILLed in the middle of a sync and
// restarted; after anti-entropy every replica returns identical `status --json` for every ticket,
// and every store holds exactly the union of what was written.

const BIN = resolve(process.cwd(), 'dist/src/tik/cli/main.js');
const children = new Set<ChildProcess>();
const dirs: string[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  dirs.forEach(cleanup);
});

const freePort = (): Promise<number> =>
  new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` returns a value (the deadline only guards against a hang; nothing is timed). */
async function until<T>(what: string, check: () => Promise<T | undefined>, deadlineMs = 90_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await sleep(100);
  }
}

interface Replica {
  readonly dir: string;
  readonly port: number;
  readonly url: string;
  peers: string[];
  proc?: ChildProcess;
  log: string;
}

function start(r: Replica): void {
  const proc = spawn(process.execPath, [BIN, '--root', r.dir, 'serve', '--port', String(r.port), '--interval', '0.2', ...r.peers.flatMap((p) => ['--peer', p])], {
    env: { PATH: process.env.PATH, HOME: r.dir, TIK_ACTOR: `replica-${r.port}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  r.log = '';
  proc.stderr!.on('data', (d: Buffer) => (r.log += d.toString()));
  proc.stdout!.on('data', (d: Buffer) => (r.log += d.toString()));
  proc.on('exit', () => children.delete(proc));
  children.add(proc);
  r.proc = proc;
}

async function healthy(r: Replica): Promise<void> {
  await until(`${r.url}/health`, async () => ((await fetch(`${r.url}/health`)).ok ? true : undefined));
}

async function post(r: Replica, verb: string, args: string[]): Promise<{ ticket: string; events?: { id: string }[]; event?: string }> {
  const res = await fetch(`${r.url}/api/${verb}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ args }) });
  const body = (await res.json()) as { ticket: string; events?: { id: string }[]; event?: string };
  if (!res.ok) throw new Error(`${verb} ${args.slice(0, 3).join(' ')} → ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** Event file names of every ticket in a file store: `ticket/id`. */
function eventIds(dir: string): string[] {
  const tickets = join(dir, 'tickets');
  if (!existsSync(tickets)) return [];
  return readdirSync(tickets).flatMap((t) => {
    const ev = join(tickets, t, 'events');
    return existsSync(ev) ? readdirSync(ev).filter((f) => f.endsWith('.edn')).map((f) => `${t}/${f.slice(0, -4)}`) : [];
  }).sort();
}

describe('three tik serve replicas with anti-entropy', () => {
  it('converge after one is SIGKILLed mid-sync and restarted: identical status, nothing lost or duplicated', async () => {
    expect(existsSync(BIN), 'build first: npm run build').toBe(true);
    const replicas: Replica[] = [];
    for (let i = 0; i < 3; i++) {
      const dir = await supportStore();
      dirs.push(dir);
      const port = await freePort();
      replicas.push({ dir, port, url: `http://127.0.0.1:${port}`, peers: [], log: '' });
    }
    for (const r of replicas) r.peers = replicas.filter((o) => o !== r).map((o) => o.url);
    replicas.forEach(start);
    await Promise.all(replicas.map(healthy));
    const [r0, r1, r2] = replicas as [Replica, Replica, Replica];

    // writes on every replica, including concurrent asserts of one path on two replicas
    const written = new Set<string>();
    const note = (ticket: string, b: { events?: { id: string }[]; event?: string }): void => {
      for (const e of b.events ?? []) written.add(`${ticket}/${e.id}`);
      if (b.event) written.add(`${ticket}/${b.event}`);
    };
    const tickets: string[] = [];
    for (const [i, r] of replicas.entries()) {
      const t = await post(r, 'new', ['support-request', '--title', `from replica ${i}`]);
      note(t.ticket, t);
      tickets.push(t.ticket);
      note(t.ticket, await post(r, 'set', [t.ticket, `category=${i === 1 ? 'billing' : 'technical'}`]));
    }
    const shared = tickets[0]!;
    await until('the first ticket on every replica', async () => (replicas.every((r) => eventIds(r.dir).some((id) => id.startsWith(shared))) ? true : undefined));
    note(shared, await post(r1, 'set', [shared, 'priority=high']));
    note(shared, await post(r2, 'set', [shared, 'priority=low']));
    note(shared, await post(r0, 'dispute', [shared, 'category', '--reason', 'not technical']));

    // a long chain on replica 2, then SIGKILL replica 1 while it is pulling that chain
    const long = await post(r2, 'new', ['support-request', '--title', 'long history']);
    note(long.ticket, long);
    tickets.push(long.ticket);
    const chain = Array.from({ length: 400 }, (_, i) => `note.n${i}=${i}`);
    note(long.ticket, await post(r2, 'set', [long.ticket, ...chain]));
    const partial = await until(
      'replica 1 to be in the middle of pulling the chain',
      async () => {
        const n = eventIds(r1.dir).filter((id) => id.startsWith(long.ticket)).length;
        return n > 0 && n < 401 ? n : undefined;
      },
      60_000,
    );
    r1.proc!.kill('SIGKILL');
    await new Promise((res) => (r1.proc!.exitCode !== null || r1.proc!.signalCode !== null ? res(undefined) : r1.proc!.once('exit', res)));
    const heldAtKill = eventIds(r1.dir).filter((id) => id.startsWith(long.ticket)).length;
    expect(heldAtKill).toBeGreaterThanOrEqual(partial);
    expect(heldAtKill).toBeLessThan(401);

    // writes continue on the survivors while replica 1 is down, then it comes back on the same store
    note(tickets[2]!, await post(r0, 'set', [tickets[2]!, 'resolution.ref=abc123']));
    start(r1);
    await healthy(r1);
    note(tickets[1]!, await post(r1, 'set', [tickets[1]!, 'priority=medium']));

    const expected = [...written].sort();
    await until('every replica to hold the union', async () => (replicas.every((r) => eventIds(r.dir).length === expected.length) ? true : undefined));
    for (const r of replicas) expect(eventIds(r.dir)).toEqual(expected);

    // identical status --json for every ticket, derived at one fixed instant on every replica
    const at = new Date(Date.now() + 3_600_000).toISOString();
    for (const t of tickets) {
      const bodies = await Promise.all(replicas.map(async (r) => (await fetch(`${r.url}/api/status/${t}?at=${encodeURIComponent(at)}`)).text()));
      expect(JSON.parse(bodies[0]!)).toMatchObject({ ticket: t, missingParents: [] });
      expect(bodies[1]).toBe(bodies[0]);
      expect(bodies[2]).toBe(bodies[0]);
      // and the CLI on each store agrees with the server
      const cli = await tik(r1.dir, ['status', t, '--at', at, '--json']);
      expect(JSON.parse(cli.stdout)).toEqual(JSON.parse(bodies[0]!));
    }
    const concurrent = JSON.parse(await (await fetch(`${r0.url}/api/status/${shared}?at=${encodeURIComponent(at)}`)).text()) as { facts: Record<string, { status: string }> };
    expect(concurrent.facts.priority!.status).toBe('conflicted');
    expect(concurrent.facts.category!.status).toBe('disputed');
    for (const r of replicas) expect(r.log).not.toMatch(/\n\s+at .*\.js:\d+/); // no stack traces
  }, 180_000);
});
