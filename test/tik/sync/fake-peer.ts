// A hostile sync peer for tests: a real HTTP server on loopback that speaks the sync wire format
// (docs/tik-sync.md) but answers as the test scripts it. Counts what it was asked and what it sent.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeHandler = (req: IncomingMessage, body: Buffer, res: ServerResponse) => unknown;

export interface FakePeer {
  readonly url: string;
  /** Requests seen per path. */
  readonly calls: Map<string, number>;
  close(): Promise<void>;
}

export async function fakePeer(handlers: Readonly<Record<string, FakeHandler>>): Promise<FakePeer> {
  const calls = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= 16 << 20) chunks.push(c);
    });
    req.on('end', () => {
      const path = req.url ?? '/';
      calls.set(path, (calls.get(path) ?? 0) + 1);
      const h = handlers[path];
      if (!h) {
        res.statusCode = 404;
        res.end();
        return;
      }
      void Promise.resolve(h(req, Buffer.concat(chunks), res)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Writes `chunk` up to `times` times with backpressure; resolves with the bytes the socket took. */
export async function stream(res: ServerResponse, chunk: Buffer, times: number): Promise<number> {
  let written = 0;
  for (let i = 0; i < times && !res.destroyed && res.writable; i++) {
    const ok = res.write(chunk);
    written += chunk.length;
    if (!ok) {
      const drained = await new Promise<boolean>((r) => {
        const done = (v: boolean) => () => {
          res.off('drain', onDrain);
          res.off('close', onClose);
          r(v);
        };
        const onDrain = done(true);
        const onClose = done(false);
        res.once('drain', onDrain);
        res.once('close', onClose);
      });
      if (!drained) break;
    }
  }
  if (!res.destroyed) res.end();
  return written;
}
