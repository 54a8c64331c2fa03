/**
 * Status under concurrent load on one replica (issue 5): a real `tik serve` process over a file
 * store of N tickets, driven by C concurrent clients on `GET /api/status/:ticket` (keep-alive
 * HTTP, tickets in a fixed pseudo-random order). Reports p50/p99 latency and throughput under
 * load, as ratios against two baselines measured in the same run:
 * - one client at a time against the same server (the latency of a request with no queueing);
 * - the in-process CLI derivation of the same status (`runTik status --json`, no HTTP, no server).
 * Never asserts time. Standalone: `npm run build && node dist/bench/tik/status-load.js [--quick]`;
 * also part of `node dist/bench/run.js`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { memoryIo } from '../../src/tik/cli/io.js';
import { runTik } from '../../src/tik/cli/run.js';
import { benchStore, benchTicket, writeTicket } from './fixture.js';
import { median, type BenchResult } from './measure.js';

export interface StatusLoadOptions {
  readonly tickets: number;
  readonly eventsPerTicket: number;
  readonly clients: number;
  /** Requests each client sends under load. */
  readonly requestsPerClient: number;
  /** Requests of the one-client baseline. */
  readonly baselineRequests: number;
}

const NOW = '2026-07-09T00:00:00Z';

const freePort = (): Promise<number> =>
  new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });

/** The q-quantile (0..1) of latencies, nearest rank. */
function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** A fixed pseudo-random ticket sequence (LCG), so every run asks the same questions. */
function ticketSequence(tickets: readonly string[], seed: number): () => string {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return tickets[x % tickets.length]!;
  };
}

async function getStatus(url: string, ticket: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(`${url}/api/status/${ticket}?at=${encodeURIComponent(NOW)}`);
  const body = await res.text();
  const ms = performance.now() - t;
  if (res.status !== 200) throw new Error(`GET /api/status/${ticket} → ${res.status}: ${body.slice(0, 200)}`);
  return ms;
}

export interface StatusLoadReport {
  readonly results: BenchResult[];
  readonly lines: string[];
}

export async function benchStatusLoad(o: StatusLoadOptions): Promise<StatusLoadReport> {
  const root = mkdtempSync(join(tmpdir(), 'tik-bench-status-'));
  const cli = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'tik', 'cli', 'main.js');
  let server: ReturnType<typeof spawn> | undefined;
  try {
    const def = benchStore(root);
    const ids: string[] = [];
    process.stderr.write(`status-load: writing ${o.tickets} tickets × ${o.eventsPerTicket} events…\n`);
    for (let i = 0; i < o.tickets; i++) {
      ids.push(benchTicket(i + 1));
      writeTicket(root, def, ids[i]!, o.eventsPerTicket);
    }

    // baseline 1: the same derivation in process, through the CLI verb (median over tickets)
    const next0 = ticketSequence(ids, 7);
    const inProcess = await median(Math.min(50, o.baselineRequests), async () => {
      const io = memoryIo({ cwd: root, env: { TIK_ROOT: root, TIK_NOW: NOW, HOME: root } });
      if ((await runTik(['status', next0(), '--json'], io)) !== 0) throw new Error(`tik status failed: ${io.stderr()}`);
    });

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, [cli, '--root', root, 'serve', '--port', String(port), '--interval', '3600'], {
      env: { PATH: process.env.PATH, HOME: root },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    server.stderr!.on('data', (b: Buffer) => (log = (log + b.toString()).slice(-4000)));
    for (let tries = 0; ; tries++) {
      if (server.exitCode !== null) throw new Error(`tik serve exited:\n${log}`);
      const ok = await fetch(`${url}/health`).then((r) => r.ok, () => false);
      if (ok) break;
      if (tries > 600) throw new Error(`tik serve did not come up:\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }

    // warm-up (JIT, file cache), then baseline 2: one client, one request at a time
    const warm = ticketSequence(ids, 11);
    for (let i = 0; i < 20; i++) await getStatus(url, warm());
    const next1 = ticketSequence(ids, 13);
    const single: number[] = [];
    for (let i = 0; i < o.baselineRequests; i++) single.push(await getStatus(url, next1()));
    single.sort((a, b) => a - b);

    // load: C clients, each sending its requests back to back
    const loaded: number[] = [];
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: o.clients }, async (_, c) => {
        const next = ticketSequence(ids, 101 + c);
        for (let i = 0; i < o.requestsPerClient; i++) loaded.push(await getStatus(url, next()));
      }),
    );
    const wallMs = performance.now() - t0;
    loaded.sort((a, b) => a - b);

    const p = (xs: number[], q: number): number => quantile(xs, q);
    const singleP50 = p(single, 0.5);
    const loadP50 = p(loaded, 0.5);
    const loadP99 = p(loaded, 0.99);
    const rps = (loaded.length / wallMs) * 1000;
    const lines = [
      `status under load: tik serve over ${o.tickets} tickets × ${o.eventsPerTicket} events (file store), ${o.clients} concurrent clients × ${o.requestsPerClient} GET /api/status`,
      `  in-process CLI derivation (tik status --json, median): ${inProcess.toFixed(1)} ms`,
      `  one client:   p50 ${singleP50.toFixed(1)} ms, p99 ${p(single, 0.99).toFixed(1)} ms (${o.baselineRequests} requests) → p50 ${(singleP50 / inProcess).toFixed(1)}× the in-process derivation`,
      `  ${o.clients} clients:   p50 ${loadP50.toFixed(1)} ms, p99 ${loadP99.toFixed(1)} ms, ${rps.toFixed(0)} requests/s → p50 ${(loadP50 / singleP50).toFixed(1)}×, p99 ${(loadP99 / singleP50).toFixed(1)}× the one-client p50; throughput ${(rps / (1000 / singleP50)).toFixed(1)}× one client's`,
    ];
    const what = `${o.clients} clients, ${o.tickets} tickets × ${o.eventsPerTicket} events; floor = in-process tik status --json`;
    return {
      lines,
      results: [
        { name: `GET /api/status p50 under load`, floorMs: inProcess, ms: loadP50, note: what },
        { name: `GET /api/status p99 under load`, floorMs: inProcess, ms: loadP99, note: what },
        { name: `GET /api/status p50, one client`, floorMs: inProcess, ms: singleP50, note: 'same server, one request at a time' },
      ],
    };
  } finally {
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server!.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(root, { recursive: true, force: true });
  }
}

/** Sizes for the full run and for `--quick`. */
export const statusLoadSizes = (quick: boolean): StatusLoadOptions =>
  quick
    ? { tickets: 200, eventsPerTicket: 20, clients: 8, requestsPerClient: 25, baselineRequests: 50 }
    : { tickets: 1000, eventsPerTicket: 20, clients: 16, requestsPerClient: 50, baselineRequests: 200 };

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const report = await benchStatusLoad(statusLoadSizes(process.argv.includes('--quick')));
  process.stdout.write(`${report.lines.join('\n')}\n`);
}
