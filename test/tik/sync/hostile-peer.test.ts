import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { TikError } from '../../../src/tik/errors.js';
import { encodeVarint } from '../../../src/tik/sync/byte-io.js';
import { httpTransport, syncWith } from '../../../src/tik/sync/index.js';
import { fakePeer, stream, type FakePeer } from './fake-peer.js';
import { TestMemoryStore } from './memory-store.js';

// Issue 13: a hostile peer is given up on. Each case is a fake peer on loopback that speaks the
// sync wire format and misbehaves one way; the initiator must end the session with a typed error
// after a bounded amount of work, whatever the peer does.

const peers: FakePeer[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) await p.close();
});

const VERSION = 0x61;
/** `MAX_BOUND` on the wire: timestamp 0 (infinity), empty id prefix. */
const MAX = [0x00, 0x00];
/** A range above everything answered with a fingerprint that never matches: the reconcile never ends. */
const endlessAnswer = (): Buffer => Buffer.from([VERSION, ...MAX, 0x01, ...randomBytes(16)]);
/** An id list of `n` made-up ids below t = 1 ms, then a never-matching fingerprint for the rest. */
const floodAnswer = (n: number): Buffer =>
  Buffer.concat([Buffer.from([VERSION, 0x02, 0x00, 0x02]), Buffer.from(encodeVarint(n)), randomBytes(32 * n), Buffer.from([...MAX, 0x01]), randomBytes(16)]);
/** One made-up id the initiator lacks, and nothing else: the initiator will fetch it. */
const oneIdAnswer = (): Buffer => Buffer.concat([Buffer.from([VERSION, ...MAX, 0x02, 0x01]), randomBytes(32)]);

const failure = async (p: Promise<unknown>): Promise<TikError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof TikError) return e;
    throw e;
  }
  throw new Error('the sync succeeded against a hostile peer');
};

describe('a hostile sync peer is given up on', () => {
  it('an endless reconciliation ends at the round limit with sync/peer-limit', async () => {
    const peer = await fakePeer({ '/sync/v1/reconcile': (_q, _b, res) => res.end(endlessAnswer()) });
    peers.push(peer);
    const e = await failure(syncWith(new TestMemoryStore(), httpTransport(peer.url), { limits: { rounds: 40 } }));
    expect(e.code).toBe('sync/peer-limit');
    expect(e.message).toMatch(/gave up after 40 reconciliation round trips/);
    expect(peer.calls.get('/sync/v1/reconcile')).toBe(40);
  });

  it('an id flood stops at the session id limit, and ids it never delivers end the session', async () => {
    const peer = await fakePeer({
      '/sync/v1/reconcile': (_q, _b, res) => res.end(floodAnswer(5000)),
      '/sync/v1/fetch': (_q, _b, res) => res.end(Buffer.from([0x54, 0x49, 0x4b, 0x42, 0x01, 0x00])), // an empty bundle
    });
    peers.push(peer);
    const lines: string[] = [];
    const e = await failure(syncWith(new TestMemoryStore(), httpTransport(peer.url), { limits: { sessionIds: 20_000 }, batch: 1000, onProgress: (l) => lines.push(l) }));
    expect(lines[0]).toMatch(/20000 to pull, 0 to push \(stopped at 20000 ids/);
    expect(peer.calls.get('/sync/v1/reconcile')).toBe(4);
    expect(peer.calls.get('/sync/v1/fetch')).toBe(1);
    expect(e.code).toBe('sync/peer-limit');
    expect(e.message).toMatch(/announced 1000 event\(s\) it then did not send/);
  });

  it('a reconciliation answer larger than the limit is refused while it streams', async () => {
    let written = 0;
    const peer = await fakePeer({
      '/sync/v1/reconcile': async (_q, _b, res) => {
        res.setHeader('content-type', 'application/octet-stream');
        written = await stream(res, Buffer.alloc(1 << 20, 0x01), 1024);
      },
    });
    peers.push(peer);
    const e = await failure(syncWith(new TestMemoryStore(), httpTransport(peer.url, { maxReconcileBytes: 2 << 20 })));
    expect(e.code).toBe('sync/peer-limit');
    await peer.close();
    expect(written).toBeLessThan(64 << 20); // cut off, not read to the end (1 GiB)
  });

  it('a huge fetch answer is cut off at the bundle limit, never buffered whole', async () => {
    let written = 0;
    const peer = await fakePeer({
      '/sync/v1/reconcile': (_q, _b, res) => res.end(oneIdAnswer()),
      '/sync/v1/fetch': async (_q, _b, res) => {
        res.setHeader('content-type', 'application/octet-stream');
        written = await stream(res, Buffer.alloc(1 << 20, 0x03), 1024);
      },
    });
    peers.push(peer);
    const before = process.memoryUsage().rss;
    const e = await failure(syncWith(new TestMemoryStore(), httpTransport(peer.url, { maxBundleBytes: 8 << 20 })));
    expect(e.code).toBe('sync/peer-limit');
    expect(e.message).toMatch(/a fetch answer .* is larger than the limit of 8388608 bytes/);
    await peer.close();
    expect(written).toBeLessThan(128 << 20);
    expect(process.memoryUsage().rss - before).toBeLessThan(256 << 20);
  });

  it('a declared Content-Length above the limit is refused before the body is read', async () => {
    const peer = await fakePeer({
      '/sync/v1/reconcile': (_q, _b, res) => res.end(oneIdAnswer()),
      '/sync/v1/fetch': (_q, _b, res) => {
        res.setHeader('content-length', String(1 << 30));
        res.write(Buffer.alloc(1024));
      },
    });
    peers.push(peer);
    const e = await failure(syncWith(new TestMemoryStore(), httpTransport(peer.url, { maxBundleBytes: 1 << 20 })));
    expect(e.code).toBe('sync/peer-limit');
    expect(e.message).toMatch(/at least 1073741824/);
  });

  it('a peer that never answers, or drips its answer, times out', async () => {
    const silent = await fakePeer({ '/sync/v1/reconcile': () => undefined });
    const drip = await fakePeer({
      '/sync/v1/reconcile': async (_q, _b, res) => {
        res.setHeader('content-type', 'application/octet-stream');
        res.write(Buffer.from([VERSION]));
        for (let i = 0; i < 200 && !res.destroyed; i++) {
          await new Promise((r) => setTimeout(r, 50));
          res.write(Buffer.from([0x00]));
        }
        res.end();
      },
    });
    peers.push(silent, drip);
    for (const p of [silent, drip]) {
      const e = await failure(syncWith(new TestMemoryStore(), httpTransport(p.url, { timeoutMs: 300 })));
      expect(e.code).toBe('sync/timeout');
      expect(e.message).toMatch(/did not answer within 300 ms/);
    }
  });

  it('an abort signal stops a session in flight (a stopping server)', async () => {
    const peer = await fakePeer({ '/sync/v1/reconcile': () => undefined });
    peers.push(peer);
    const stop = new AbortController();
    const p = failure(syncWith(new TestMemoryStore(), httpTransport(peer.url, { signal: stop.signal }), { signal: stop.signal }));
    setTimeout(() => stop.abort(), 50);
    expect((await p).code).toBe('sync/aborted');
  });

  it('the session byte limit ends a peer that keeps talking', async () => {
    const peer = await fakePeer({ '/sync/v1/reconcile': (_q, _b, res) => res.end(floodAnswer(30_000)) });
    peers.push(peer);
    const e = await failure(syncWith(new TestMemoryStore(), httpTransport(peer.url), { limits: { sessionBytes: 3 << 20 } }));
    expect(e.code).toBe('sync/peer-limit');
    expect(e.message).toMatch(/more than 3145728 bytes in one sync session/);
    expect(peer.calls.get('/sync/v1/reconcile')).toBe(4);
  });
});
