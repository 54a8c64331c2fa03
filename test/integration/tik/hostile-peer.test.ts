import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, closeStore } from '../../../src/tik/store/index.js';
import { Instant, Uuid, kw } from '../../../src/tik/edn/value.js';
import { mintEvent } from '../../../src/tik/kernel/index.js';
import { encodeVarint } from '../../../src/tik/sync/byte-io.js';
import { ednMapOf } from '../../tik/sync/edn-helpers.js';
import { startServer, type ServerProcess } from '../../support/processes.js';
import { freePort } from '../../support/services.js';
import { until } from '../../support/until.js';
import { cleanup, supportStore, tik } from '../../tik/cli/harness.js';
import { fakePeer, type FakePeer } from '../../tik/sync/fake-peer.js';

// Issue 13 / issue 12 with real `tik serve` processes on loopback: a hostile --peer is given up on
// and quarantined without starving an honest one; SIGTERM stops a replica in the middle of a
// hostile sync; slow headers and bodies are timed out; a crowd of slow sockets does not lock out
// /health; pushes of 1 GiB in all keep the replica's memory under the documented bound.

const dirs: string[] = [];
const servers: ServerProcess[] = [];
const fakes: FakePeer[] = [];
afterAll(async () => {
  for (const s of servers) await s.kill();
  for (const f of fakes) await f.close();
  dirs.forEach(cleanup);
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function serve(args: readonly string[]): Promise<{ server: ServerProcess; dir: string }> {
  const dir = await supportStore();
  dirs.push(dir);
  const port = await freePort();
  const server = await startServer(['--root', dir, 'serve', '--port', String(port), ...args], { cwd: dir, port, system: 'tik', readyPath: '/health', env: { TIK_ACTOR: 'replica' } });
  servers.push(server);
  return { server, dir };
}

interface PeerStatus {
  url: string;
  state: string;
  failures: number;
  lastError?: { code: string; message: string };
}
const health = async (s: ServerProcess): Promise<{ status: string; peerStatus: PeerStatus[] }> => (await (await fetch(`${s.url}/health`)).json()) as { status: string; peerStatus: PeerStatus[] };

/** Resolves when a request can take more bytes, or is gone. */
const drained = (req: ReturnType<typeof request>): Promise<void> =>
  new Promise((r) => {
    const done = (): void => {
      req.off('drain', done);
      req.off('close', done);
      r();
    };
    req.once('drain', done);
    req.once('close', done);
  });

const endlessAnswer = (): Buffer => Buffer.from([0x61, 0x00, 0x00, 0x01, ...randomBytes(16)]);

const exited = (s: ServerProcess): Promise<number | null> =>
  s.child.exitCode !== null || s.child.signalCode !== null ? Promise.resolve(s.child.exitCode) : new Promise((r) => s.child.once('exit', (code) => r(code)));

describe('tik serve against hostile peers and clients', () => {
  it('a hostile --peer is quarantined after the round limit and does not starve an honest peer', async () => {
    const hostile = await fakePeer({ '/sync/v1/reconcile': (_q, _b, res) => res.end(endlessAnswer()) });
    fakes.push(hostile);
    const honest = await serve([]);
    const made = await tik(honest.dir, ['new', 'support-request', '--title', 'from the honest peer', '--json']);
    expect(made.code).toBe(0);
    const ticket = (JSON.parse(made.stdout) as { ticket: string }).ticket;
    const a = await serve(['--peer', hostile.url, '--peer', honest.server.url, '--interval', '0.3', '--sync-max-rounds', '30']);
    await until('the honest peer’s ticket at A', async () => {
      const store = await openStore(a.dir);
      try {
        return (await store.ticketIds()).includes(ticket) ? true : undefined;
      } finally {
        await closeStore(store);
      }
    });
    const h = await until('the hostile peer quarantined on /health', async () => {
      const body = await health(a.server);
      return body.peerStatus.find((p) => p.url === hostile.url)?.state === 'quarantined' ? body : undefined;
    });
    const bad = h.peerStatus.find((p) => p.url === hostile.url)!;
    expect(bad.lastError?.code).toBe('sync/peer-limit');
    expect(bad.lastError?.message).toMatch(/gave up after 30 reconciliation round trips/);
    await until('the honest peer ok on /health', async () => ((await health(a.server)).peerStatus.find((p) => p.url === honest.server.url)?.state === 'ok' ? true : undefined));
    await sleep(1000); // several anti-entropy intervals: a quarantined peer is not asked again
    expect(hostile.calls.get('/sync/v1/reconcile')).toBe(30);
    expect(a.server.output()).toMatch(/anti-entropy: peer quarantined/);
  });

  it('SIGTERM stops tik serve in the middle of a sync with a peer that never answers', async () => {
    const silent = await fakePeer({ '/sync/v1/reconcile': () => undefined });
    fakes.push(silent);
    const a = await serve(['--peer', silent.url, '--interval', '0.2', '--sync-timeout', '3600']);
    await until('a sync in flight', async () => ((silent.calls.get('/sync/v1/reconcile') ?? 0) > 0 ? true : undefined));
    const code = exited(a.server);
    a.server.child.kill('SIGTERM');
    expect(await Promise.race([code, sleep(30_000).then(() => 'still running')])).toBe(0);
  });

  it('closes connections whose headers or body never finish', async () => {
    // --open-writes: a push must get past authorship for its body to be read at all
    const a = await serve(['--headers-timeout', '1', '--request-timeout', '2', '--open-writes']);
    const port = Number(new URL(a.server.url).port);
    const closedAfter = async (write: (s: Socket) => void): Promise<string> => {
      const s = connect(port, '127.0.0.1');
      let answer = '';
      s.on('data', (d: Buffer) => (answer += d.toString()));
      const closed = new Promise<string>((r) => s.once('close', () => r(answer)));
      s.once('connect', () => write(s));
      return Promise.race([closed, sleep(30_000).then(() => 'still open')]);
    };
    expect(await closedAfter((s) => s.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n'))).not.toBe('still open');
    const slowBody = await closedAfter((s) => s.write('POST /sync/v1/push HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\nTIKB'));
    expect(slowBody).not.toBe('still open');
    expect(slowBody).toMatch(/^HTTP\/1\.1 408|^$/);
    expect((await health(a.server)).status).toBe('ok');
  });

  it('1,100 slow sockets do not lock out /health (the oldest idle ones are closed)', async () => {
    const a = await serve([]);
    const port = Number(new URL(a.server.url).port);
    const sockets: Socket[] = [];
    let closed = 0;
    try {
      for (let i = 0; i < 1100; i++) {
        const s = connect(port, '127.0.0.1');
        s.on('error', () => undefined);
        s.once('close', () => closed++);
        s.once('connect', () => s.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '));
        sockets.push(s);
        if (i % 100 === 99) await sleep(20);
      }
      await until('the crowd connected', async () => (sockets.every((s) => !s.connecting) ? true : undefined));
      const res = await fetch(`${a.server.url}/health`);
      expect(res.status).toBe(200);
      await until('the oldest slow sockets closed', async () => (closed >= 1100 - 512 ? true : undefined));
    } finally {
      for (const s of sockets) s.destroy();
    }
    expect(a.server.child.exitCode).toBeNull();
  });

  it('pushes of 1 GiB in all keep the replica under the documented memory bound, and it still answers', async () => {
    const a = await serve(['--open-writes']); // pushes are taken (and read) from anyone: the bound is under test
    const pid = a.server.child.pid!;
    const ticket = Buffer.alloc(16, 0x11);
    // a blob record of 1 MiB: kind 3, ticket uuid, varint length, bytes (generated once, sent many times)
    const blob = Buffer.concat([Buffer.from([0x03]), ticket, Buffer.from([0xc0, 0x80, 0x00]), randomBytes(1 << 20)]);
    const push = (records: number, declared = 5 + records * blob.length + 1): Promise<number | string> =>
      new Promise((resolve) => {
        const req = request(`${a.server.url}/sync/v1/push`, { method: 'POST', headers: { 'content-type': 'application/octet-stream', 'content-length': String(declared) } }, (res) => {
          res.resume();
          res.once('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', (e) => resolve(e.message));
        void (async () => {
          if (!req.write(Buffer.from('TIKB\x01', 'latin1'))) await new Promise((r) => req.once('drain', r));
          for (let i = 0; i < records && !req.destroyed; i++) {
            if (!req.write(blob)) await drained(req);
          }
          if (!req.destroyed) req.end(Buffer.from([0x00]));
        })();
      });
    // four concurrent pushes of 256 MiB (the gate takes them one at a time), then one declaring 1 GiB
    const results = await Promise.all([256, 256, 256, 256].map((n) => push(n)));
    expect(results).toEqual([400, 400, 400, 400]); // each is read whole, checked, refused: no attach names those blobs
    // refused from its Content-Length alone: a 413, or the reset of the socket it is still writing to
    expect(String(await push(1024))).toMatch(/^413$|EPIPE|ECONNRESET|socket hang up/);
    const peak = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
    expect(peak).toBeLessThan(768 * 1024 * 1024);
    expect((await health(a.server)).status).toBe('ok');
  });
});

/** The documented bound on a `tik serve` replica's resident memory with the default limits (docs/tik-sync.md, "Memory"). */
const MEMORY_BOUND = 768 * 1024 * 1024;
const vm = (pid: number, field: 'VmHWM' | 'VmRSS'): number => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

describe('a streamed push of 1 GiB', () => {
  it('is admitted while it streams, under the documented memory bound, and /health answers meanwhile', async () => {
    const a = await serve(['--open-writes']);
    const pid = a.server.child.pid!;
    // Valid events, generated on the fly: creates of one ticket, 64 KiB each, pinning a definition
    // this replica does not hold, so each is admitted in full (hash, UTF-8, parse, canonical) and
    // then held back as pending — nothing is stored, the stream is all the server has to hold.
    const ticket = '018f2f6e-7c1a-7000-8000-00000000beef';
    const digits = 10;
    const title = `${'t'.repeat(64 * 1024 - 400)}${'0'.repeat(digits)}`;
    const pin = `sha256-${'ab'.repeat(32)}`;
    const template = Buffer.from(
      mintEvent({ ticket: new Uuid(ticket), type: kw('ticket/create'), actor: 'mallory', at: new Instant(Date.parse('2026-07-08T11:00:00Z')), parents: [], body: ednMapOf({ 'ticket/title': title, 'ticket/process': kw('support-request'), 'ticket/process-version': 1n, 'ticket/process-hash': pin }) }).text,
      'utf8',
    );
    const counterAt = template.indexOf('0'.repeat(digits));
    const ticketBytes = Buffer.from(ticket.replace(/-/g, ''), 'hex');
    const head = Buffer.concat([Buffer.from([0x01]), ticketBytes]);
    const length = Buffer.from(encodeVarint(template.length));
    const recordBytes = head.length + 32 + length.length + template.length;
    const TOTAL = 1 << 30;
    const n = Math.ceil(TOTAL / recordBytes);
    const declared = 5 + n * recordBytes + 1;
    let peakRss = 0;
    let healthOk = 0;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, vm(pid, 'VmRSS'));
      void fetch(`${a.server.url}/health`, { signal: AbortSignal.timeout(5000) }).then((r) => r.status === 200 && healthOk++, () => undefined);
    }, 250);
    const started = Date.now();
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${a.server.url}/sync/v1/push`, { method: 'POST', headers: { 'content-type': 'application/octet-stream', 'content-length': String(declared) } }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.once('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      void (async () => {
        req.write(Buffer.from('TIKB\x01', 'latin1'));
        const event = Buffer.from(template);
        for (let i = 0; i < n && !req.destroyed; i++) {
          event.write(String(i).padStart(digits, '0'), counterAt, 'latin1');
          const id = createHash('sha256').update(event).digest();
          // one fresh buffer per record: the socket may still hold the previous one
          if (!req.write(Buffer.concat([head, id, length, event]))) await drained(req);
        }
        if (!req.destroyed) req.end(Buffer.from([0x00]));
      })();
    });
    const seconds = (Date.now() - started) / 1000;
    clearInterval(sampler);
    expect(answer.status, answer.body).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ stored: 0, deferred: n });
    const peak = vm(pid, 'VmHWM');
    console.log(`streamed push: ${n} events, ${(declared / (1 << 20)).toFixed(0)} MiB in ${seconds.toFixed(1)} s (${(declared / (1 << 20) / seconds).toFixed(1)} MiB/s); VmHWM ${(peak / (1 << 20)).toFixed(0)} MiB, sampled VmRSS peak ${(peakRss / (1 << 20)).toFixed(0)} MiB; /health answered ${healthOk} times`);
    expect(peak).toBeLessThan(MEMORY_BOUND);
    expect(healthOk).toBeGreaterThan(0);
    // one record claiming 1 GiB is refused at its length prefix, without reading it
    const claim = Buffer.concat([Buffer.from('TIKB\x01', 'latin1'), head, Buffer.alloc(32), Buffer.from(encodeVarint(1 << 30))]);
    const res = await fetch(`${a.server.url}/sync/v1/push`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: claim });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('sync/too-large');
    expect((await health(a.server)).status).toBe('ok');
  }, 180_000);
});

describe('tik sync against a hostile replica', () => {
  it('gives up after --max-rounds and says so, with --json too', async () => {
    const hostile = await fakePeer({ '/sync/v1/reconcile': (_q, _b, res) => res.end(endlessAnswer()) });
    fakes.push(hostile);
    const dir = await supportStore();
    dirs.push(dir);
    const text = await tik(dir, ['sync', hostile.url, '--max-rounds', '10']);
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(/sync\/peer-limit: gave up after 10 reconciliation round trips/);
    const js = await tik(dir, ['sync', hostile.url, '--max-rounds', '10', '--json']);
    expect(js.code).toBe(1);
    expect(JSON.parse(js.stdout)).toMatchObject({ ok: false, peer: hostile.url, gaveUp: true, error: { code: 'sync/peer-limit' } });
    expect(hostile.calls.get('/sync/v1/reconcile')).toBe(20);
  });
});
