import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTikServer, type TikServer } from '../../../src/tik/server/index.js';
import { FileStore } from '../../../src/tik/store/file/file-store.js';
import { BUNDLE_ENCODING_HEADER } from '../../../src/tik/sync/bundle-encoding.js';
import { decodeBundle, encodeIdList, httpTransport, SyncResponder, syncWith, type SyncTransport } from '../../../src/tik/sync/index.js';
import { TikError } from '../../../src/tik/errors.js';
import { chainEvents } from './chain-events.js';
import { fakePeer, type FakePeer } from './fake-peer.js';
import { TestMemoryStore } from './memory-store.js';

// Issue 18: fetch answers are gzip-compressed for an initiator that asks (x-tik-bundle-encoding),
// never for one that does not: an older initiator sizes its read from Content-Length and would
// refuse a compressed body, and HTTP clients send Accept-Encoding: gzip by themselves.

const TICKET = '018f2f6e-7c1a-7000-8000-0000000000e1';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A file store holding one ticket of `n` chained events, served by a real `tik serve` app. */
async function servedStore(n: number): Promise<{ url: string; store: FileStore; ids: string[]; server: TikServer }> {
  const dir = mkdtempSync(join(tmpdir(), 'tik-encoding-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const store = new FileStore(dir, { durable: false });
  const events = chainEvents(TICKET, n);
  for (const e of events) await store.append(TICKET, e.id, e.bytes);
  const ids = events.map((e) => e.id);
  const server = await buildTikServer({ root: dir, store });
  cleanups.push(() => server.close());
  const url = await server.app.listen({ port: 0, host: '127.0.0.1' });
  return { url, store, ids, server };
}

/** A transport that records what each fetch answer weighed on the wire (Content-Length) and decoded. */
function measured(url: string): { transport: SyncTransport; fetched: { wire: number; decoded: number }[] } {
  const inner = httpTransport(url);
  const fetched: { wire: number; decoded: number }[] = [];
  return {
    fetched,
    transport: {
      ...inner,
      fetch: async (request) => {
        const res = await fetch(new URL('/sync/v1/fetch', url), { method: 'POST', headers: { 'content-type': 'application/octet-stream', [BUNDLE_ENCODING_HEADER]: 'gzip' }, body: request });
        const body = new Uint8Array(await res.arrayBuffer());
        fetched.push({ wire: Number(res.headers.get('content-length')), decoded: body.length });
        return inner.fetch(request);
      },
    },
  };
}

describe('fetch answers are compressed for an initiator that asks', () => {
  it('a new initiator gets a gzip answer, much smaller than the bundle, and the sync is whole', async () => {
    const { url, store, ids } = await servedStore(60);
    const { transport, fetched } = measured(url);
    const local = new TestMemoryStore();
    const r = await syncWith(local, transport);
    expect(r.pulled).toBe(60);
    expect((await local.events(TICKET)).map((e) => e.id).sort()).toEqual([...ids].sort());
    expect((await store.events(TICKET)).length).toBe(60);
    expect(fetched).toHaveLength(1);
    expect(fetched[0]!.wire).toBeLessThan(fetched[0]!.decoded * 0.6);
  });

  it('an older initiator (no x-tik-bundle-encoding, but Accept-Encoding: gzip) gets the bundle as is, with its exact Content-Length', async () => {
    const { url, ids } = await servedStore(5);
    const res = await fetch(new URL('/sync/v1/fetch', url), { method: 'POST', headers: { 'content-type': 'application/octet-stream', 'accept-encoding': 'gzip, deflate' }, body: encodeIdList(ids) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBeNull();
    const body = new Uint8Array(await res.arrayBuffer());
    expect(Number(res.headers.get('content-length'))).toBe(body.length);
    expect(decodeBundle(body).events.map((e) => e.id).sort()).toEqual([...ids].sort());
  });

  it('a new initiator syncs with an older responder that ignores the header (uncompressed answers)', async () => {
    const { store, ids } = await servedStore(8);
    // an older replica: the same responder, served without compression
    const responder = new SyncResponder(store);
    let asked = 0;
    const older: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.headers[BUNDLE_ENCODING_HEADER] !== undefined) asked++;
        const body = Buffer.concat(chunks);
        const answer = req.url === '/sync/v1/reconcile' ? responder.reconcile(body) : responder.fetch(body);
        void answer.then((a) => res.setHeader('content-type', 'application/octet-stream').end(Buffer.from(a)));
      });
    });
    await new Promise<void>((r) => older.listen(0, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise<void>((r) => older.close(() => r())));
    const local = new TestMemoryStore();
    const r = await syncWith(local, httpTransport(`http://127.0.0.1:${(older.address() as AddressInfo).port}`), { direction: 'pull' });
    expect(r.pulled).toBe(8);
    expect(asked).toBe(1);
    expect((await local.events(TICKET)).map((e) => e.id).sort()).toEqual([...ids].sort());
  });
});

describe('a compressed answer is bounded by its decoded size', () => {
  const peers: FakePeer[] = [];
  afterEach(async () => {
    for (const p of peers.splice(0)) await p.close();
  });

  it('a small gzip body that decodes past the bundle limit is cut off with sync/peer-limit', async () => {
    const VERSION = 0x61;
    const bomb = gzipSync(Buffer.alloc(64 << 20, 0x03), { level: 9 });
    expect(bomb.length).toBeLessThan(1 << 20);
    const peer = await fakePeer({
      '/sync/v1/reconcile': (_q, _b, res) => res.end(Buffer.concat([Buffer.from([VERSION, 0x00, 0x00, 0x02, 0x01]), Buffer.alloc(32, 7)])),
      '/sync/v1/fetch': (_q, _b, res) => res.setHeader('content-encoding', 'gzip').setHeader('content-length', bomb.length).end(bomb),
    });
    peers.push(peer);
    let error: unknown;
    try {
      await syncWith(new TestMemoryStore(), httpTransport(peer.url, { maxBundleBytes: 8 << 20 }));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TikError);
    expect((error as TikError).code).toBe('sync/peer-limit');
    expect((error as TikError).message).toMatch(/a fetch answer .* is larger than the limit of 8388608 bytes/);
  });
});
