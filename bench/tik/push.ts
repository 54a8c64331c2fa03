/**
 * Push throughput (issue 13: streamed pushes with memory bounded independent of the bundle's size).
 * A source file store holds N MiB of valid events (the bench ticket shape); in one run:
 * - the push: `tik sync URL --push` (a CLI process) into a real `tik serve --open-writes` (another
 *   process) over an empty file store — reconcile, then the bundles streamed and admitted;
 * - the floor: the very bundle bytes (collected and encoded as the push does, in its batches of
 *   1000 events) POSTed by this process to a bare node:http server (a process) that writes each
 *   body to a file — transport plus disk, no parsing and no admission;
 * - a second floor: copying the source's event files (`cpSync`), one file per event like the store.
 * Reports MiB/s of event bytes for each, the ratios, and each server's peak RSS (VmHWM).
 * Run: `npm run build && node dist/bench/tik/push.js [--mib=N] [--event-kib=K]` (default 8 MiB of
 * ~290-byte events, under a minute; `--mib=256` for a big run; `--event-kib=64` for large events,
 * one create per ticket). Never asserts time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { FileStore } from '../../src/tik/store/file/file-store.js';
import { collectBundle, encodeBundle, indexStore } from '../../src/tik/sync/index.js';
import { benchStore, benchTicket, writeTicket } from './fixture.js';

const MIB = 1 << 20;
const mib = Number(process.argv.find((a) => a.startsWith('--mib='))?.slice(6) ?? 8);
const eventKib = Number(process.argv.find((a) => a.startsWith('--event-kib='))?.slice(12) ?? 0);
/** Small events: tickets of 100 (the bench ticket); `--event-kib=K`: one create per ticket, its title K KiB. */
const PER_TICKET = eventKib > 0 ? 1 : 100;
const BATCH = 1000;
const here = dirname(fileURLToPath(import.meta.url));
const CLI = join(here, '..', '..', 'src', 'tik', 'cli', 'main.js');

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Peak resident set of a running process, in MiB (Linux /proc). */
function peakRssMib(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

function post(url: string, body: Uint8Array): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/octet-stream', 'content-length': body.length } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function waitUp(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode})`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`${url} did not come up`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const done = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await done;
}

/** A bare sink: each POST body is streamed to its own file under `dir`. */
const SINK = `
  const { createServer } = require('node:http');
  const { createWriteStream } = require('node:fs');
  const { join } = require('node:path');
  let n = 0;
  createServer((req, res) => {
    const out = createWriteStream(join(process.argv[1], 'body-' + n++));
    req.pipe(out);
    out.on('finish', () => res.end('ok'));
  }).listen(Number(process.argv[2]), '127.0.0.1');
`;

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    c.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    c.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

const work = mkdtempSync(join(tmpdir(), 'tik-push-bench-'));
const children: ChildProcess[] = [];
try {
  // the source: whole tickets of PER_TICKET events until the event bytes reach N MiB
  const src = join(work, 'src');
  const def = benchStore(src);
  let eventBytes = 0;
  let events = 0;
  for (let t = 0; eventBytes < mib * MIB; t++) {
    writeTicket(src, def, benchTicket(t), PER_TICKET, eventKib > 0 ? 't'.repeat(eventKib * 1024) : undefined);
    const dir = join(src, 'tickets', benchTicket(t), 'events');
    for (const f of readdirSync(dir)) eventBytes += statSync(join(dir, f)).size;
    events += PER_TICKET;
  }
  process.stdout.write(`push bench: ${events} events, ${(eventBytes / MIB).toFixed(1)} MiB of event bytes (${(eventBytes / events).toFixed(0)} B/event)\n`);

  // floor 1: the push's bundles (same batches), POSTed to a bare sink that writes them to disk
  const store = new FileStore(src, { durable: false });
  const index = await indexStore(store);
  const ids = [...index.ticketOf.keys()];
  const bodies: Uint8Array[] = [];
  for (let i = 0; i < ids.length; i += BATCH) bodies.push(encodeBundle(await collectBundle(store, index, ids.slice(i, i + BATCH))));
  const wireBytes = bodies.reduce((n, b) => n + b.length, 0);
  const sinkDir = join(work, 'sink');
  const sinkPort = await freePort();
  mkdirSync(sinkDir);
  const sink = spawn(process.execPath, ['-e', SINK, sinkDir, String(sinkPort)], { stdio: 'inherit' });
  children.push(sink);
  const sinkUrl = `http://127.0.0.1:${sinkPort}/`;
  await waitUp(sinkUrl, sink);
  let t = performance.now();
  for (const b of bodies) if ((await post(sinkUrl, b)) !== 200) throw new Error('sink refused a body');
  const sinkMs = performance.now() - t;
  const sinkRss = peakRssMib(sink.pid!);
  await stop(sink);

  // floor 2: copy the event files
  t = performance.now();
  cpSync(join(src, 'tickets'), join(work, 'copy', 'tickets'), { recursive: true });
  const copyMs = performance.now() - t;

  // the push: tik sync --push (CLI) into tik serve --open-writes (over an empty file store)
  const dst = join(work, 'dst');
  benchStore(dst);
  const port = await freePort();
  const serve = spawn(process.execPath, [CLI, '--root', dst, 'serve', '--port', String(port), '--open-writes'], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(serve);
  let serveErr = '';
  serve.stderr!.on('data', (d: Buffer) => (serveErr = (serveErr + d.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  await waitUp(`${url}/health`, serve);
  const rssBefore = peakRssMib(serve.pid!);
  t = performance.now();
  const r = await run([CLI, '--root', src, 'sync', url, '--push', '--json']);
  const pushMs = performance.now() - t;
  const serveRss = peakRssMib(serve.pid!);
  await stop(serve);
  if (r.code !== 0) throw new Error(`tik sync --push failed (${r.code}): ${r.stdout}${r.stderr}\n${serveErr}`);
  const report = JSON.parse(r.stdout) as { pushed?: number; rounds?: number };
  if (report.pushed !== events) throw new Error(`pushed ${report.pushed} of ${events} events: ${r.stdout}`);

  const rate = (ms: number): string => `${((eventBytes / MIB / ms) * 1000).toFixed(1)} MiB/s`;
  process.stdout.write(
    [
      `push (tik sync --push → tik serve):  ${pushMs.toFixed(0)} ms = ${rate(pushMs)} (${report.rounds} reconcile rounds, ${bodies.length} bundles, ${(wireBytes / MIB).toFixed(1)} MiB on the wire); server peak RSS ${serveRss.toFixed(0)} MiB (${rssBefore.toFixed(0)} MiB idle)`,
      `floor: same bundles POSTed to a bare http sink writing them to disk: ${sinkMs.toFixed(0)} ms = ${rate(sinkMs)}; sink peak RSS ${sinkRss.toFixed(0)} MiB`,
      `floor: copying the event files (cpSync): ${copyMs.toFixed(0)} ms = ${rate(copyMs)}`,
      `ratio: push / bare POST ${(pushMs / sinkMs).toFixed(1)}×, push / file copy ${(pushMs / copyMs).toFixed(1)}× (time; lower is better)`,
    ].join('\n') + '\n',
  );
} finally {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
}
