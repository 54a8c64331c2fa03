import { afterAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { openFileStore } from '../../../src/tik/store/file/open-file-store.js';
import { buildTikServer, type TikServer } from '../../../src/tik/server/index.js';
import type { ServerLimits } from '../../../src/tik/server/server-limits.js';
import { T0, cleanup, supportStore } from '../cli/harness.js';

// Issue 13 / 12: the responder bounds what one client may make it do — bodies by size (refused
// while they stream, before the body when the declared length already says so), reconciliation
// rounds per client address, and transfers in flight.

const dirs: string[] = [];
const servers: TikServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  dirs.forEach(cleanup);
});

async function replica(limits: Partial<ServerLimits>): Promise<string> {
  const dir = await supportStore();
  dirs.push(dir);
  const server = await buildTikServer({ root: dir, store: await openFileStore(dir), env: { TIK_NOW: T0, HOME: dir }, limits, authorship: { mode: 'open' } }); // pushes are open here: the limits are under test
  servers.push(server);
  return server.app.listen({ port: 0, host: '127.0.0.1' });
}

const post = async (url: string, body: Uint8Array): Promise<{ status: number; code: string | undefined; retry: string | null }> => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body });
  const j = (await res.json().catch(() => ({}))) as { error?: { code?: string } };
  return { status: res.status, code: j.error?.code, retry: res.headers.get('retry-after') };
};

/** A push that sends its headers and then nothing: it holds a transfer slot until it is given up. */
const stalledPush = (base: string): { done: Promise<number | string>; req: ReturnType<typeof request> } => {
  const req = request(`${base}/sync/v1/push`, { method: 'POST', headers: { 'content-type': 'application/octet-stream', 'content-length': '1000' } });
  const done = new Promise<number | string>((r) => {
    req.once('response', (res) => r(res.statusCode ?? 0));
    req.once('error', (e) => r(e.message));
  });
  req.write('TIKB\x01');
  return { done, req };
};

describe('sync responder limits', () => {
  it('streams a push of any declared length, refuses a record past its cap at its length, and a non-bundle at once', async () => {
    const base = await replica({ bundleBytes: 1 << 20 });
    // an empty bundle declared by its length, and one sent chunked with no length: both are read as streams
    expect(await post(`${base}/sync/v1/push`, Buffer.from('TIKB\x01\x00', 'latin1'))).toMatchObject({ status: 200 });
    const chunked = await fetch(`${base}/sync/v1/push`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: new ReadableStream({ start: (c) => (c.enqueue(Buffer.from('TIKB\x01\x00', 'latin1')), c.close()) }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(200);
    // an event record claiming 1 GiB: refused at its length prefix, before any of its bytes
    const claim = Buffer.concat([Buffer.from('TIKB\x01\x01', 'latin1'), Buffer.alloc(48), Buffer.from([0x84, 0x80, 0x80, 0x80, 0x00])]);
    expect(await post(`${base}/sync/v1/push`, claim)).toMatchObject({ status: 413, code: 'sync/too-large' });
    expect(await post(`${base}/sync/v1/push`, Buffer.from('not a bundle at all'))).toMatchObject({ status: 400, code: 'sync/bad-bundle' });
    expect(await post(`${base}/sync/v1/reconcile`, new Uint8Array((8 << 20) + 1))).toMatchObject({ status: 413, code: 'sync/too-large' });
  });

  it('caps the reconciliation rounds one client address may drive', async () => {
    const base = await replica({ reconcilePerMinute: 5 });
    const message = Uint8Array.from([0x61, 0x00, 0x00, 0x01, ...new Uint8Array(16)]);
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await post(`${base}/sync/v1/reconcile`, message));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(answers[5]).toMatchObject({ code: 'sync/rate-limited', retry: '5' });
  });

  it('admits pushes --max-pushes at a time with a bounded queue; past it, 503 sync/push-busy with Retry-After', async () => {
    const base = await replica({ pushes: 1, transferQueue: 1 });
    const holding = stalledPush(base); // takes the one push slot
    const waiting = stalledPush(base); // waits in the queue
    await new Promise((r) => setTimeout(r, 200));
    const refused = await post(`${base}/sync/v1/push`, Buffer.from('TIKB\x01\x00', 'latin1'));
    expect(refused).toMatchObject({ status: 503, code: 'sync/push-busy', retry: '5' });
    // fetch answers have their own slots: a stalled push does not block them
    expect(await post(`${base}/sync/v1/fetch`, Uint8Array.of(0))).toMatchObject({ status: 200 });
    for (const p of [holding, waiting]) p.req.destroy();
    await Promise.all([holding.done, waiting.done]);
    // the slots come back: the next push is served
    for (let i = 0; i < 50; i++) {
      const r = await post(`${base}/sync/v1/push`, Buffer.from('TIKB\x01\x00', 'latin1'));
      if (r.status !== 503) {
        expect(r.status).toBe(200);
        return;
      }
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error('the transfer slots never came back');
  });
});
