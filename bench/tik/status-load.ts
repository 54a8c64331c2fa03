/**
 * Status under concurrent load (issues 5 and 18): two real `tik serve` processes over one file
 * store of N tickets, driven by C concurrent clients on `GET /api/status/:ticket` (keep-alive
 * HTTP, tickets in a fixed pseudo-random order): one with `TIK_INDEX=off` (every read parses and
 * derives the ticket: the path before the status cache), one with the status cache. Both are
 * warmed by one read of every ticket, then measured in the same run, load rounds alternating the
 * two. Reports p50/p99 latency and throughput of each, and the cache's throughput as a ratio of
 * the old path's; also the one-client latency and the in-process CLI derivation. Never asserts
 * time. Standalone: `npm run build && node dist/bench/tik/status-load.js [--quick]
 * [--baseline=OTHER/dist/src/tik/cli/main.js]` (a third replica from another build, e.g. the commit
 * before the cache); also part of `node dist/bench/run.js`.
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
import { LeanHttp } from './lean-http.js';
import { median, type BenchResult } from './measure.js';

export interface StatusLoadOptions {
  readonly tickets: number;
  readonly eventsPerTicket: number;
  readonly clients: number;
  /** Requests each client sends under load. */
  readonly requestsPerClient: number;
  /** Requests of the one-client baseline. */
  readonly baselineRequests: number;
  /** Load rounds per replica (alternating them). */
  readonly rounds: number;
  /**
   * A third replica run from another build's CLI (`--baseline=…/dist/src/tik/cli/main.js`, e.g. the
   * commit before the status cache): the old code path itself, not only the cache turned off.
   */
  readonly baselineCli?: string;
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

const AT = encodeURIComponent(NOW);

/** GET /api/status of `ticket` on `conn`; its latency in ms. */
async function getStatus(conn: LeanHttp, ticket: string): Promise<number> {
  const t = performance.now();
  const status = await conn.get(`/api/status/${ticket}?at=${AT}`);
  const ms = performance.now() - t;
  if (status !== 200) throw new Error(`GET /api/status/${ticket} → ${status}`);
  return ms;
}

export interface StatusLoadReport {
  readonly results: BenchResult[];
  readonly lines: string[];
}

export async function benchStatusLoad(o: StatusLoadOptions): Promise<StatusLoadReport> {
  const root = mkdtempSync(join(tmpdir(), 'tik-bench-status-'));
  const cli = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'tik', 'cli', 'main.js');
  const running: Running[] = [];
  const connections: LeanHttp[] = [];
  const connection = (url: string): LeanHttp => {
    const c = new LeanHttp(Number(url.slice(url.lastIndexOf(':') + 1)));
    connections.push(c);
    return c;
  };
  try {
    const def = benchStore(root);
    const ids: string[] = [];
    process.stderr.write(`status-load: writing ${o.tickets} tickets × ${o.eventsPerTicket} events…\n`);
    for (let i = 0; i < o.tickets; i++) {
      ids.push(benchTicket(i + 1));
      writeTicket(root, def, ids[i]!, o.eventsPerTicket);
    }

    // the same derivation in process, through the CLI verb, without the cache (median over tickets)
    const next0 = ticketSequence(ids, 7);
    const inProcess = await median(Math.min(50, o.baselineRequests), async () => {
      const io = memoryIo({ cwd: root, env: { TIK_ROOT: root, TIK_NOW: NOW, HOME: root, TIK_INDEX: 'off' } });
      if ((await runTik(['status', next0(), '--json'], io)) !== 0) throw new Error(`tik status failed: ${io.stderr()}`);
    });

    // two replicas of the same store side by side: the old path (TIK_INDEX=off: every read parses
    // and derives the ticket) and the status cache
    const servers: { off: Running; cached: Running; base?: Running } = { off: await startServer(cli, root, { TIK_INDEX: 'off' }), cached: await startServer(cli, root, {}) };
    running.push(servers.off, servers.cached);
    if (o.baselineCli !== undefined) running.push((servers.base = await startServer(o.baselineCli, root, {})));
    const sides = Object.keys(servers) as Side[];

    // warm-up: JIT, the file cache, and one read of every ticket (a replica's steady state: the
    // cache holds what it has read once), on both servers alike
    for (const s of Object.values(servers)) {
      const conn = connection(s.url);
      for (const t of ids) await getStatus(conn, t);
    }

    // one client, one request at a time
    const single = async (url: string): Promise<number[]> => {
      const next = ticketSequence(ids, 13);
      const conn = connection(url);
      const xs: number[] = [];
      for (let i = 0; i < o.baselineRequests; i++) xs.push(await getStatus(conn, next()));
      return xs.sort((a, b) => a - b);
    };
    const singles: Partial<Record<Side, number[]>> = {};
    for (const side of sides) singles[side] = await single(servers[side]!.url);

    // load: C clients, each sending its requests back to back; rounds alternate the two servers
    const load = async (url: string, round: number): Promise<{ latencies: number[]; wallMs: number }> => {
      const latencies: number[] = [];
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: o.clients }, async (_, c) => {
          const next = ticketSequence(ids, 101 + c + 1000 * round);
          const conn = connection(url);
          for (let i = 0; i < o.requestsPerClient; i++) latencies.push(await getStatus(conn, next()));
        }),
      );
      return { latencies, wallMs: performance.now() - t0 };
    };
    const totals = Object.fromEntries(sides.map((side) => [side, { latencies: [] as number[], wallMs: 0 }])) as Record<Side, { latencies: number[]; wallMs: number }>;
    for (let r = 0; r < o.rounds; r++) {
      // each round starts one replica later, so load changes during the run fall on every side
      for (let k = 0; k < sides.length; k++) {
        const side = sides[(r + k) % sides.length]!;
        const x = await load(servers[side]!.url, r);
        totals[side].latencies.push(...x.latencies);
        totals[side].wallMs += x.wallMs;
      }
    }

    const p = (xs: number[], q: number): number => quantile(xs, q);
    const lines = [
      `status under load: two tik serve replicas of one file store of ${o.tickets} tickets × ${o.eventsPerTicket} events, after one read of every ticket; ${o.clients} concurrent clients × ${o.requestsPerClient} GET /api/status, ${o.rounds} rounds alternating the replicas`,
      `  in-process CLI derivation (tik status --json, median): ${inProcess.toFixed(1)} ms`,
    ];
    const rps: Partial<Record<Side, number>> = {};
    for (const side of sides) {
      const one = singles[side]!;
      const loaded = totals[side].latencies.sort((a, b) => a - b);
      rps[side] = (loaded.length / totals[side].wallMs) * 1000;
      const label = { off: 'TIK_INDEX=off (no cache)', cached: 'status cache', base: `baseline build (${o.baselineCli})` }[side];
      lines.push(
        `  ${label}: one client p50 ${p(one, 0.5).toFixed(2)} ms, p99 ${p(one, 0.99).toFixed(2)} ms; ${o.clients} clients p50 ${p(loaded, 0.5).toFixed(1)} ms, p99 ${p(loaded, 0.99).toFixed(1)} ms, ${rps[side]!.toFixed(0)} requests/s (${(rps[side]! / (1000 / p(one, 0.5))).toFixed(1)}× one client's)`,
      );
    }
    lines.push(`  throughput at ${o.clients} clients: status cache ${(rps.cached! / rps.off!).toFixed(1)}× TIK_INDEX=off (same store, same run)`);
    if (rps.base !== undefined) lines.push(`  throughput at ${o.clients} clients: status cache ${(rps.cached! / rps.base).toFixed(1)}× the baseline build (same store, same run)`);
    const what = `${o.clients} clients, ${o.tickets} tickets × ${o.eventsPerTicket} events`;
    return {
      lines,
      results: [
        // as times, so the table's ratio reads "× the old path": time per request = 1 / throughput
        { name: `GET /api/status per request at ${o.clients} clients (1/throughput)`, floorMs: 1000 / rps.off!, ms: 1000 / rps.cached!, note: `${what}; floor = same with TIK_INDEX=off` },
        { name: `GET /api/status p50, one client`, floorMs: p(singles.off!, 0.5), ms: p(singles.cached!, 0.5), note: 'floor = same with TIK_INDEX=off' },
      ],
    };
  } finally {
    for (const c of connections) c.close();
    for (const s of running) await s.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

type Side = 'off' | 'cached' | 'base';

interface Running {
  readonly url: string;
  stop(): Promise<void>;
}

/** A `tik serve` process over `root` with `env`, once its /health answers. */
async function startServer(cli: string, root: string, env: Record<string, string>): Promise<Running> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, [cli, '--root', root, 'serve', '--port', String(port), '--interval', '3600'], {
    env: { PATH: process.env.PATH, HOME: root, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stop = async (): Promise<void> => {
    if (server.exitCode !== null) return;
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  };
  let log = '';
  server.stderr.on('data', (b: Buffer) => (log = (log + b.toString()).slice(-4000)));
  for (let tries = 0; ; tries++) {
    if (server.exitCode !== null) throw new Error(`tik serve exited:\n${log}`);
    const ok = await fetch(`${url}/health`).then((r) => r.ok, () => false);
    if (ok) return { url, stop };
    if (tries > 600) {
      await stop();
      throw new Error(`tik serve did not come up:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Sizes for the full run and for `--quick`. */
export const statusLoadSizes = (quick: boolean): StatusLoadOptions =>
  quick
    ? { tickets: 200, eventsPerTicket: 20, clients: 8, requestsPerClient: 25, baselineRequests: 50, rounds: 2 }
    : { tickets: 1000, eventsPerTicket: 20, clients: 16, requestsPerClient: 50, baselineRequests: 200, rounds: 4 };

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const baseline = process.argv.find((a) => a.startsWith('--baseline='))?.slice('--baseline='.length);
  const report = await benchStatusLoad({ ...statusLoadSizes(process.argv.includes('--quick')), ...(baseline ? { baselineCli: baseline } : {}) });
  process.stdout.write(`${report.lines.join('\n')}\n`);
}
