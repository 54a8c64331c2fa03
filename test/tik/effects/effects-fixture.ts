/** Stores with a small two-stage process, and a local HTTP receiver that records every webhook. */
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { tempDir, tik } from '../cli/harness.js';

/** `:requested` is reached on create; `:approved` once `approved=true` is asserted. */
export const DEPLOY = `{:process/id :deploy
 :process/version 1
 :process/facts {[:approved] :boolean}
 :process/stages [{:stage/id :requested :guards []}
                  {:stage/id :approved :after [:requested] :guards [[:fact [:approved]]]}]}
`;

/** A fresh file store (or SQLite store) holding the `deploy` process; returns its directory. */
export async function deployStore(options: { sqlite?: boolean } = {}): Promise<string> {
  const dir = tempDir('tik-effects-');
  const r = await tik(dir, options.sqlite ? ['init', '--sqlite'] : ['init']);
  if (r.code !== 0) throw new Error(`init failed: ${r.stderr}`);
  writeFileSync(join(dir, 'processes', 'deploy.edn'), DEPLOY);
  return dir;
}

/** `tik new deploy` in `dir`; returns the ticket id. */
export async function newDeploy(dir: string, title = 'ship it'): Promise<string> {
  const r = await tik(dir, ['new', 'deploy', '--title', title, '--json']);
  if (r.code !== 0) throw new Error(`new failed: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { ticket: string }).ticket;
}

export async function approve(dir: string, ticket: string): Promise<void> {
  const r = await tik(dir, ['set', ticket, 'approved=true']);
  if (r.code !== 0) throw new Error(`set failed: ${r.stderr}`);
}

export interface Received {
  readonly path: string;
  readonly key: string | undefined;
  readonly attempt: string | undefined;
  readonly body: Record<string, unknown>;
}

/** What the receiver does with a request: answer with a status, or hold it open (never answer). */
export type Answer = number | 'hold';

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** Decide per request (default: 200). */
  answer: (r: Received) => Answer;
  /** Resolves when `n` requests have arrived. */
  waitFor(n: number): Promise<void>;
  /** Answer every held request now with `status`. */
  releaseHeld(status: number): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const held: ServerResponse[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const received: Received[] = [];
  const r: Receiver = {
    url: '',
    received,
    answer: () => 200,
    waitFor: (n) => (received.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    releaseHeld: (status) => {
      for (const res of held.splice(0)) res.writeHead(status).end();
    },
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const rec: Received = {
        path: req.url ?? '',
        key: req.headers['idempotency-key'] as string | undefined,
        attempt: req.headers['tik-delivery-attempt'] as string | undefined,
        body: JSON.parse(body) as Record<string, unknown>,
      };
      received.push(rec);
      for (const w of waiters.filter((x) => received.length >= x.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const a = r.answer(rec);
      if (a === 'hold') held.push(res);
      else res.writeHead(a).end();
    });
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  (r as { url: string }).url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return r;
}

/** A port nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((res) => s.listen(0, '127.0.0.1', () => res()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((res) => s.close(() => res()));
  return port;
}

/** Polls until `check` returns a value (the deadline only guards against a hang; nothing is timed). */
export async function until<T>(what: string, check: () => Promise<T | undefined>, deadlineMs = 60_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
