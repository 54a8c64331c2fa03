/**
 * Sync benchmark (issue 5): two file-store replicas on loopback HTTP.
 * - full sync of N events into an empty replica: events/s and bytes on the wire per event, as a
 *   ratio to copying the same event files (cpSync) measured in this run;
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
import { httpTransport, syncWith, type SyncReport } from '../../src/tik/sync/index.js';
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

const work = mkdtempSync(join(tmpdir(), 'tik-sync-bench-'));
try {
  const a = join(work, 'a');
  const b = join(work, 'b');
  const def = benchStore(a);
  benchStore(b);
  for (let t = 0; t < TICKETS; t++) writeTicket(a, def, benchTicket(t), PER_TICKET);
  const n = TICKETS * PER_TICKET;
  const storeA = new FileStore(a, { durable: false });
  const storeB = new FileStore(b, { durable: false });
  const server = await buildTikServer({ root: a, store: storeA });
  const url = await server.app.listen({ port: 0, host: '127.0.0.1' });

  // baseline: copy the event files
  let t = performance.now();
  cpSync(join(a, 'tickets'), join(work, 'copy', 'tickets'), { recursive: true });
  const copyMs = performance.now() - t;
  const copyBytes = dirBytes(join(work, 'copy', 'tickets'));

  t = performance.now();
  const full = await syncWith(storeB, httpTransport(url));
  const fullMs = performance.now() - t;

  t = performance.now();
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
  const out = [
    `tik sync benchmark: ${n} events (${TICKETS} tickets × ${PER_TICKET}), file stores, loopback HTTP`,
    `full sync:   ${full.pulled} events in ${fullMs.toFixed(0)} ms = ${((full.pulled / fullMs) * 1000).toFixed(0)} events/s; ${full.rounds} round trips; ${(wire(full) / n).toFixed(1)} bytes/event on the wire`,
    `  vs copying the files: ${copyMs.toFixed(0)} ms, ${(copyBytes / n).toFixed(1)} bytes/event → time ratio ${(fullMs / copyMs).toFixed(1)}×, bytes ratio ${(wire(full) / copyBytes).toFixed(2)}×`,
    `no-op sync:  ${noop.rounds} round trip(s), ${noop.reconcileBytesSent + noop.reconcileBytesReceived} bytes, ${noopMs.toFixed(0)} ms in process (ids listed, no event bytes read on either side)`,
    `  as a cold \`tik sync\` process: ${cliMs.toFixed(0)} ms, of which ${startMs.toFixed(0)} ms is starting the CLI (it reads its own store's events once)`,
    `one round's index (${n} events): ${listedMs.toFixed(0)} ms from the id listing vs ${readMs.toFixed(0)} ms reading every event → ${(readMs / listedMs).toFixed(1)}× faster`,
    `10 differences: need ${diff.need}, have ${diff.have}; ${diff.rounds} round trips (log16 n = ${logb.toFixed(1)}); reconciliation ${diff.reconcileBytesSent + diff.reconcileBytesReceived} bytes vs bound d·b·log16(n)·17 ≈ ${Math.round(10 * 16 * Math.ceil(logb) * 17)}; transfer ${diff.transferBytesSent + diff.transferBytesReceived} bytes; ${diffMs.toFixed(0)} ms`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
