import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shardOf } from '../../../src/tik/shard/shard-spec.js';
import { openFileStore } from '../../../src/tik/store/file/open-file-store.js';
import { localTransport, syncWith } from '../../../src/tik/sync/index.js';
import { distBin, startServer, type ServerProcess } from '../../support/processes.js';
import { freePort } from '../../support/services.js';
import { T0, cleanup, snapshot, supportStore, tik, tikDist } from '../../tik/cli/harness.js';

// Issue 5 acceptance (sharding): 2 shards × 2 replicas, real `tik serve` processes on loopback.
// Writes go to any replica; `ls` and `next` through any replica return byte for byte what one
// store holding every ticket returns; a shard with no live replica makes the answer a 503.

const M = 2;
const dirs: string[] = [];
const procs: ServerProcess[] = [];
afterAll(async () => {
  for (const p of procs) await p.kill();
  dirs.forEach(cleanup);
});

interface Replica {
  readonly shard: number;
  readonly dir: string;
  readonly url: string;
  proc?: ServerProcess;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => Promise<boolean>, deadlineMs = 90_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await sleep(100);
  }
}

async function post(r: Replica, verb: string, args: string[]): Promise<{ ticket: string }> {
  const res = await fetch(`${r.url}/api/${verb}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ args, actor: 'seb' }) });
  const body = (await res.json()) as { ticket: string };
  if (!res.ok) throw new Error(`${verb} ${args.join(' ')} via ${r.url} → ${res.status} ${JSON.stringify(body)}`);
  return body;
}

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

describe('tik serve --shard: 2 shards × 2 replicas (real processes)', () => {
  it('ls and next through any replica equal one store holding every ticket; a shard with no replica is a 503', async () => {
    expect(existsSync(distBin('tik')), 'build first: npm run build').toBe(true);
    const help = tikDist(process.cwd(), ['serve', '--help']);
    for (const flag of ['--shard <i/M>', '--shard-peer <url>', '--recur <process=cadence>', '--recurrences <file>']) expect(help.stdout).toContain(flag);

    const ports = await Promise.all(Array.from({ length: 2 * M }, () => freePort()));
    const replicas: Replica[] = [];
    for (let k = 0; k < 2 * M; k++) {
      const dir = await supportStore();
      dirs.push(dir);
      replicas.push({ shard: k % M, dir, url: `http://127.0.0.1:${ports[k]}` });
    }
    for (const [k, r] of replicas.entries()) {
      const peers = replicas.filter((o) => o !== r && o.shard === r.shard).flatMap((o) => ['--peer', o.url]);
      const others = replicas.filter((o) => o.shard !== r.shard).flatMap((o) => ['--shard-peer', o.url]);
      r.proc = await startServer(['--root', r.dir, 'serve', '--port', String(ports[k]), '--interval', '0.2', '--open-writes', '--shard', `${r.shard}/${M}`, ...peers, ...others], {
        cwd: r.dir,
        port: ports[k]!,
        system: 'tik',
        readyPath: '/health',
        env: { PATH: process.env.PATH, HOME: r.dir, TIK_NOW: T0, TIK_ACTOR: 'seb' },
      });
      procs.push(r.proc);
    }

    // writes through every replica; sets address tickets of either shard, by id and by prefix
    const tickets: string[] = [];
    for (let i = 0; i < 10; i++) tickets.push((await post(replicas[i % replicas.length]!, 'new', ['support-request', '--title', `ticket ${i}`])).ticket);
    expect(new Set(tickets.map((t) => shardOf(t, M))).size).toBe(M);
    // a ticket written at one replica reaches its shard's other replica by anti-entropy (eventual, as unsharded)
    const converged = async (): Promise<void> => {
      for (let s = 0; s < M; s++) {
        const [a, b] = replicas.filter((r) => r.shard === s);
        await until(`shard ${s} replicas to converge`, async () => {
          const [fa, fb] = [eventFiles(a!.dir), eventFiles(b!.dir)];
          return Object.keys(fa).length > 0 && JSON.stringify(fa) === JSON.stringify(fb);
        });
      }
    };
    await converged();
    const facts = ['category=technical', 'severity=high', 'category=billing', 'resolution.ref=abcdef123', 'customer.ack=true'];
    for (let i = 0; i < 16; i++) {
      const t = tickets[(i * 7) % tickets.length]!;
      await post(replicas[(i * 3) % replicas.length]!, 'set', [i % 2 === 0 ? t : t.slice(0, 12), facts[i % facts.length]!]);
    }
    await post(replicas[1]!, 'set', [tickets[0]!, `link.depends-on=${tickets[1]!}`]);
    await post(replicas[2]!, 'set', [tickets[3]!, `link.depends-on=${tickets[2]!}`]);

    // anti-entropy converges each shard's two replicas; no replica holds a ticket of another shard
    await converged();
    for (const r of replicas) for (const t of await (await openFileStore(r.dir)).ticketIds()) expect(shardOf(t, M)).toBe(r.shard);

    // the reference: one store holding every ticket
    const single = await supportStore();
    dirs.push(single);
    for (const r of replicas) await syncWith(await openFileStore(single), localTransport(await openFileStore(r.dir)), { direction: 'pull' });
    expect((await (await openFileStore(single)).ticketIds()).length).toBe(tickets.length);

    const lenses: [string, string[]][] = [
      ['/api/ls', ['ls', '--json']],
      ['/api/ls?all=true', ['ls', '--all', '--json']],
      ['/api/next', ['next', '--json']],
      ['/api/next?all=true', ['next', '--all', '--json']],
      ['/api/next?actor=seb', ['--actor', 'seb', 'next', '--json']],
      ['/api/next?role=triager', ['next', '--role', 'triager', '--json']],
    ];
    for (const [path, argv] of lenses) {
      const expected = await tik(single, argv);
      expect(expected.code).toBe(0);
      for (const r of replicas) {
        const res = await fetch(`${r.url}${path}`);
        expect(res.status, `${path} via ${r.url}`).toBe(200);
        expect(await res.text(), `${path} via ${r.url} (shard ${r.shard})`).toBe(expected.stdout);
      }
    }
    for (const t of tickets.slice(0, 4)) {
      const expected = JSON.parse((await tik(single, ['status', t, '--json'])).stdout) as unknown;
      for (const r of replicas) expect(await (await fetch(`${r.url}/api/status/${t.slice(0, 10)}`)).json()).toEqual(expected);
    }

    // tik sync against a sharded replica syncs that shard's part of the local store (it learns the shard from /health)
    const fresh = await supportStore();
    dirs.push(fresh);
    const pulled = tikDist(fresh, ['--root', fresh, 'sync', replicas[0]!.url, '--json']);
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stderr).toContain('holds shard 0/2');
    expect(eventFiles(fresh)).toEqual(eventFiles(replicas[0]!.dir));
    // a store holding every ticket syncs with it too: nothing of shard 1 is offered, nothing is refused
    const whole = tikDist(single, ['--root', single, 'sync', replicas[0]!.url, '--json']);
    expect(whole.code, whole.stderr).toBe(0);
    expect(JSON.parse(whole.stdout)).toMatchObject({ pulled: 0, pushed: 0 });

    // one replica of shard 1 down: the other answers for it; both down: a 503 naming the shard
    const shard1 = replicas.filter((r) => r.shard === 1);
    await shard1[0]!.proc!.kill('SIGKILL');
    const stillWhole = await fetch(`${replicas[0]!.url}/api/ls?all=true`);
    expect([stillWhole.status, await stillWhole.text()]).toEqual([200, (await tik(single, ['ls', '--all', '--json'])).stdout]);
    await shard1[1]!.proc!.kill('SIGKILL');
    for (const path of ['/api/ls', '/api/next']) {
      const res = await fetch(`${replicas[0]!.url}${path}`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: { code: 'shard/unavailable', message: expect.stringContaining('shard 1/2') } });
    }
  }, 240_000);
});
