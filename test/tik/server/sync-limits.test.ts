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
  it('refuses an oversized push before reading it, a push without a length, and a non-bundle at once', async () => {
    const base = await replica({ bundleBytes: 1 << 20 });
    expect(await post(`${base}/sync/v1/push`, new Uint8Array((1 << 20) + 1))).toMatchObject({ status: 413, code: 'sync/too-large' });
    const chunked = await fetch(`${base}/sync/v1/push`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: new ReadableStream({ start: (c) => (c.enqueue(new Uint8Array(16)), c.close()) }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(411);
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

  it('admits transfers one at a time with a bounded queue; past it, 503 with Retry-After', async () => {
    const base = await replica({ transfers: 1, transferQueue: 1 });
    const holding = stalledPush(base); // takes the one slot
    const waiting = stalledPush(base); // waits in the queue
    await new Promise((r) => setTimeout(r, 200));
    const refused = await post(`${base}/sync/v1/fetch`, Uint8Array.of(0));
    expect(refused).toMatchObject({ status: 503, code: 'sync/busy', retry: '5' });
    for (const p of [holding, waiting]) p.req.destroy();
    await Promise.all([holding.done, waiting.done]);
    // the slots come back: the next fetch is served
    for (let i = 0; i < 50; i++) {
      const r = await post(`${base}/sync/v1/fetch`, Uint8Array.of(0));
      if (r.status !== 503) {
        expect(r.status).toBe(200);
        return;
      }
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error('the transfer slots never came back');
  });
});
