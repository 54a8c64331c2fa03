/**
 * Sync benchmark (issues 5, 18): two file-store replicas on loopback HTTP.
 * - full sync of N events into an empty replica: time per event and bytes on the wire per event
 *   (counted on the server's sockets), as ratios to copying the same event files (cpSync)
 *   measured just before it in this run; the same at N/10 (linearity: time per event at both
 *   sizes), and at N/10 into a durable store (flushed before acknowledging; the copy never flushes);
 * - a no-op sync of the two equal stores: round trips and bytes, in this process (both sides have
 *   seen every id: the index lists ids and reads no event bytes) and as a cold `tik sync` CLI
 *   process (its side reads every event once; the server's side is warm);
 * - one round's index of a store (what each reconcile request builds): from the id listing with
 *   every id seen before, against reading every event as the index did before `allEventIds`
 *   (the same store with the listing hidden), interleaved runs (see sync-index.ts);
 * - 10 differences (5 new on each side): round trips and bytes against the d·b·log_b(n) bound.
 * Run: `npm run build && node dist/bench/tik/sync.js [--quick]`. Reports ratios, never asserts time.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Instant, Keyword, Uuid } from '../../src/tik/edn/value.js';
import { ednMap } from '../../src/tik/edn/index.js';
import { mintEvent, parseEvent, heads } from '../../src/tik/kernel/index.js';
import { FileStore } from '../../src/tik/store/file/file-store.js';
import type { EventStore } from '../../src/tik/store/store.js';
import { buildTikServer } from '../../src/tik/server/index.js';
import { httpTransport, indexStore, syncWith, type SyncReport } from '../../src/tik/sync/index.js';
import { benchStore, benchTicket, writeTicket } from './fixture.js';
import { compareIndex } from './sync-index.js';

const quick = process.argv.includes('--quick');
const run = promisify(execFile);
const TICKETS = quick ? 100 : 1000;
const PER_TICKET = 100;

function dirBytes(dir: string): number {
  let n = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const s = statSync(p);
    n += s.isDirectory() ? dirBytes(p) : s.size;
  }
  return n;
}

const wire = (r: SyncReport): number => r.reconcileBytesSent + r.reconcileBytesReceived + r.transferBytesSent + r.transferBytesReceived;

async function addEvents(store: EventStore, ticket: string, count: number, actor: string): Promise<void> {
  for (let i = 0; i < count; i++) {
    const events = (await store.events(ticket)).map((e) => parseEvent(Buffer.from(e.bytes).toString('utf8'), e.id));
    const at = Math.max(...events.map((e) => e.at.ms)) + 1;
    const m = mintEvent({
      ticket: new Uuid(ticket),
      type: Keyword.of('fact/assert'),
      actor,
      at: new Instant(at),
      parents: heads(events),
      body: ednMap([[Keyword.of('fact/path'), [Keyword.of(`extra-${actor}-${i}`)]], [Keyword.of('fact/value'), BigInt(i)]]),
    });
    await store.append(ticket, m.event.id, Buffer.from(m.text));
  }
}

/** Bytes both ways on every socket the server accepted (HTTP framing included): what crossed the wire. */
function socketBytes(server: Server): () => number {
  const sockets = new Set<Socket>();
  let closed = 0;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => {
      closed += s.bytesRead + s.bytesWritten;
      sockets.delete(s);
    });
  });
  return () => closed + [...sockets].reduce((n, s) => n + s.bytesRead + s.bytesWritten, 0);
}

interface FullSync {
  readonly n: number;
  readonly copyMs: number;
  readonly copyBytes: number;
  readonly fullMs: number;
  readonly wireBytes: number;
  readonly report: SyncReport;
}

/**
 * Copies the event files of `a` (the baseline), then syncs them over loopback HTTP into an empty
 * store: one timed pair, measured side by side. `durable` is the receiving store's flushing (the
 * copy never flushes).
 */
async function fullSync(work: string, a: string, url: string, wireNow: () => number, n: number, durable: boolean, tag: string): Promise<FullSync> {
  const b = join(work, `b-${tag}`);
  benchStore(b);
  let t = performance.now();
  cpSync(join(a, 'tickets'), join(work, `copy-${tag}`, 'tickets'), { recursive: true });
  const copyMs = performance.now() - t;
  const copyBytes = dirBytes(join(work, `copy-${tag}`, 'tickets'));
  const before = wireNow();
  t = performance.now();
  const report = await syncWith(new FileStore(b, { durable }), httpTransport(url));
  const fullMs = performance.now() - t;
  if (report.pulled !== n) throw new Error(`pulled ${report.pulled} of ${n}`);
  return { n, copyMs, copyBytes, fullMs, wireBytes: wireNow() - before, report };
}

const fullLine = (f: FullSync, what: string): string =>
  `${what}: ${f.n} events in ${f.fullMs.toFixed(0)} ms = ${((f.fullMs * 1000) / f.n).toFixed(1)} µs/event; ${f.report.rounds} round trips; ${(f.wireBytes / f.n).toFixed(1)} wire bytes/event (socket bytes, HTTP included; decoded bodies ${(wire(f.report) / f.n).toFixed(1)})\n` +
  `  vs copying the files (cpSync, same run): ${f.copyMs.toFixed(0)} ms, ${(f.copyBytes / f.n).toFixed(1)} bytes/event → time ratio ${(f.fullMs / f.copyMs).toFixed(2)}×, bytes ratio ${(f.wireBytes / f.copyBytes).toFixed(2)}×`;

/** A source store of `tickets` × PER_TICKET events served over loopback HTTP (pushes open, for the 10-difference case). */
async function served(work: string, tag: string, tickets: number, first = 0) {
  const a = join(work, `a-${tag}`);
  const def = benchStore(a);
  for (let t = first; t < first + tickets; t++) writeTicket(a, def, benchTicket(t), PER_TICKET);
  const store = new FileStore(a, { durable: false });
  // a running `tik serve` has seen its events (the index caches each id's time): every pair alike
  await indexStore(store);
  const server = await buildTikServer({ root: a, store, authorship: { mode: 'open' } });
  const wireNow = socketBytes(server.app.server);
  const url = await server.app.listen({ port: 0, host: '127.0.0.1' });
  return { a, store, server, url, wireNow };
}

const work = mkdtempSync(join(tmpdir(), 'tik-sync-bench-'));
try {
  // Linearity: the same full sync at a tenth of the size, in the same run.
  // warm-up (JIT, first connections), not reported
  const warm = await served(work, 'warm', 5, 2_000_000);
  await fullSync(work, warm.a, warm.url, warm.wireNow, 5 * PER_TICKET, false, 'warm');
  await warm.server.close();
  // other tickets than the large store's, so no event id is seen twice by this process; three
  // pairs, the median kept (the machine is shared: one pair can land on a burst of load)
  const small = await served(work, 'small', TICKETS / 10, 1_000_000);
  const smalls: FullSync[] = [];
  for (let i = 0; i < 3; i++) smalls.push(await fullSync(work, small.a, small.url, small.wireNow, (TICKETS / 10) * PER_TICKET, false, `small-${i}`));
  const fullSmall = smalls.sort((x, y) => x.fullMs / x.copyMs - y.fullMs / y.copyMs)[1]!;
  const durableSmall = await fullSync(work, small.a, small.url, small.wireNow, (TICKETS / 10) * PER_TICKET, true, 'small-durable');
  await small.server.close();

  const { a, store: storeA, server, url, wireNow } = await served(work, 'big', TICKETS);
  const n = TICKETS * PER_TICKET;
  const fullBig = await fullSync(work, a, url, wireNow, n, false, 'big');
  const b = join(work, 'b-big');
  const storeB = new FileStore(b, { durable: false });

  let t = performance.now();
  const noop = await syncWith(storeB, httpTransport(url));
  const noopMs = performance.now() - t;

  // the same no-op from a fresh `tik sync` process, and that process's start-up alone (--help)
  const cli = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'tik', 'cli', 'main.js');
  t = performance.now();
  await run(process.execPath, [cli, '--root', b, 'sync', url, '--json']); // async: this process serves the peer
  const cliMs = performance.now() - t;
  t = performance.now();
  await run(process.execPath, [cli, '--help']);
  const startMs = performance.now() - t;

  // one reconcile round's index of store A, with and without the id listing
  const { listedMs, readMs } = await compareIndex(storeA, 5);

  await addEvents(storeA, benchTicket(1), 5, 'a');
  await addEvents(storeB, benchTicket(TICKETS - 2), 5, 'b');
  t = performance.now();
  const diff = await syncWith(storeB, httpTransport(url));
  const diffMs = performance.now() - t;
  await server.close();

  const logb = Math.log(n) / Math.log(16);
  const perEvent = (f: FullSync): number => f.fullMs / f.n;
  const out = [
    `tik sync benchmark: ${n} events (${TICKETS} tickets × ${PER_TICKET}) and a tenth of it, file stores, loopback HTTP`,
    fullLine(fullBig, 'full sync'),
    fullLine(fullSmall, `full sync, ${fullSmall.n} events (median of 3 pairs by time ratio)`),
    `  linearity: time per event at ${fullBig.n} ÷ at ${fullSmall.n} = ${(perEvent(fullBig) / perEvent(fullSmall)).toFixed(2)}× (1 is linear); copy per file ${((fullBig.copyMs / fullBig.n) / (fullSmall.copyMs / fullSmall.n)).toFixed(2)}×`,
    fullLine(durableSmall, `full sync into a durable store (every batch flushed before it is acknowledged), ${durableSmall.n} events`),
    `no-op sync:  ${noop.rounds} round trip(s), ${noop.reconcileBytesSent + noop.reconcileBytesReceived} bytes, ${noopMs.toFixed(0)} ms in process (ids listed, no event bytes read on either side)`,
    `  as a cold \`tik sync\` process: ${cliMs.toFixed(0)} ms, of which ${startMs.toFixed(0)} ms is starting the CLI (it reads its own store's events once)`,
    `one round's index (${n} events): ${listedMs.toFixed(0)} ms from the id listing vs ${readMs.toFixed(0)} ms reading every event → ${(readMs / listedMs).toFixed(1)}× faster`,
    `10 differences: need ${diff.need}, have ${diff.have}; ${diff.rounds} round trips (log16 n = ${logb.toFixed(1)}); reconciliation ${diff.reconcileBytesSent + diff.reconcileBytesReceived} bytes vs bound d·b·log16(n)·17 ≈ ${Math.round(10 * 16 * Math.ceil(logb) * 17)}; transfer ${diff.transferBytesSent + diff.transferBytesReceived} bytes; ${diffMs.toFixed(0)} ms`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
