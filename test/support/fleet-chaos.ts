/**
 * Load and chaos for a local fleet (src/core/fleet): a small keep-alive load driver that checks
 * every answer it gets against an oracle, and a chaos loop that SIGKILLs (then restarts) and
 * SIGSTOPs (then SIGCONTs) random members. Used by the chaos tests and bench/fleet.
 *
 * Why not autocannon's API (its `setupRequest`/`onResponse` hooks can judge answers): autocannon
 * 9.0.0 loses a request without a trace when the server closes the connection before answering —
 * it reconnects and sends the next one, with no `reqError`. Tried against a server that closed
 * every 7th connection mid-request: the server received 10,640 requests, autocannon reported
 * 9,120 answers and no error for the other 1,520. A SIGKILLed member behind HAProxy is exactly
 * that case, so the failover error rate would read low (a tik chaos run on it reported 0 refused
 * writes where this driver counts 0.6–3 %). This driver attributes every failure to its request.
 */
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { haproxyMarks, isRunning, memberMarks, readFleetState, type FleetMemberState, type FleetState } from '../../src/core/fleet/fleet-state.js';
import { restartMember } from '../../src/core/fleet/fleet.js';
import { haproxyView } from '../../src/core/fleet/haproxy-stats.js';
import { prng } from './prng.js';

/** One request and how to judge its answer. */
export interface LoadRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** `ok`: the right answer; `wrong`: an answer that must never be given; `error`: a refusal a failover may cause (counted, not fatal). */
  check(status: number, body: string, headers: IncomingHttpHeaders): 'ok' | 'wrong' | 'error';
}

export interface LoadReport {
  total: number;
  ok: number;
  wrong: number;
  errors: number;
  /** Errors by kind: `status:503`, `network:ECONNRESET`, `timeout`, … */
  errorKinds: Record<string, number>;
  /** Up to 5 wrong answers, for the failure message. */
  wrongSamples: string[];
  /** The first answer of each error kind (what the balancer or the instance said). */
  errorSamples: Record<string, string>;
  /** Requests per second over the run. */
  rate: number;
}

/** Sends one request; resolves with status and body, or rejects with the network error. */
function send(agent: Agent, base: URL, r: LoadRequest, timeoutMs: number): Promise<{ status: number; body: string; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, host: base.hostname, port: base.port, method: r.method, path: r.path, headers: { ...(r.body !== undefined ? { 'content-type': 'application/json' } : {}), ...r.headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', reject);
    req.end(r.body);
  });
}

/**
 * Drives `concurrency` keep-alive connections against `url` until `stop()` is true, each worker
 * taking its next request from `next(i)`; every answer is judged by the request's `check`.
 */
export async function runLoad(o: { url: string; concurrency: number; next: (n: number) => LoadRequest; stop: () => boolean; timeoutMs?: number }): Promise<LoadReport> {
  const base = new URL(o.url);
  const agent = new Agent({ keepAlive: true, maxSockets: o.concurrency });
  const report: LoadReport = { total: 0, ok: 0, wrong: 0, errors: 0, errorKinds: {}, wrongSamples: [], errorSamples: {}, rate: 0 };
  const error = (kind: string, sample: string): void => {
    report.errorSamples[kind] ??= sample.slice(0, 300);
    report.errors++;
    report.errorKinds[kind] = (report.errorKinds[kind] ?? 0) + 1;
  };
  let n = 0;
  const started = Date.now();
  const worker = async (): Promise<void> => {
    while (!o.stop()) {
      const r = o.next(n++);
      report.total++;
      try {
        const a = await send(agent, base, r, o.timeoutMs ?? 30_000);
        const verdict = r.check(a.status, a.body, a.headers);
        if (verdict === 'ok') report.ok++;
        else if (verdict === 'error') error(`status:${a.status}`, a.body);
        else {
          report.wrong++;
          if (report.wrongSamples.length < 5) report.wrongSamples.push(`${r.method} ${r.path} ${r.body ?? ''} → ${a.status} ${a.body.slice(0, 300)}`);
        }
      } catch (e) {
        error(`network:${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, (e as Error).message);
      }
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  agent.destroy();
  report.rate = report.total / Math.max(0.001, (Date.now() - started) / 1000);
  return report;
}

/** A deterministic random source, so a failing run can be replayed by its seed. */
export const seededRandom = prng;

export interface ChaosReport {
  kills: number;
  stops: number;
  restarts: number;
  faults: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Signals a member only while its pid is still the process the fleet started (never a recycled pid). */
function signal(state: FleetState, m: FleetMemberState, sig: NodeJS.Signals): void {
  if (!isRunning(m.pid, memberMarks(state, m))) return;
  try {
    process.kill(m.pid!, sig);
  } catch {
    // already gone
  }
}

/**
 * Injects `faults` faults into the fleet in `dir`, one every `everyMs` (±50 %): a SIGKILL
 * (`killShare` of them; the member is restarted at once on its port) or a SIGSTOP lifted by
 * SIGCONT after `stopMs` (±50 %). Only a member HAProxy has in rotation is faulted, and never the
 * last one: at least one member stays up at any time. Resolves
 * when every fault was injected and every faulted member is back (ready, or continued).
 */
export async function runChaos(o: { dir: string; faults: number; rng: () => number; everyMs: number; stopMs: number; killShare: number; env?: NodeJS.ProcessEnv }): Promise<ChaosReport> {
  const report: ChaosReport = { kills: 0, stops: 0, restarts: 0, faults: 0 };
  const busy = new Set<string>();
  const pending: Promise<void>[] = [];
  const jitter = (ms: number): number => ms * (0.5 + o.rng());
  while (report.faults < o.faults) {
    await sleep(jitter(o.everyMs));
    const state = readFleetState(o.dir);
    if (!state) throw new Error(`no fleet in ${o.dir}`);
    // only members HAProxy has in rotation, and never the last one: the fleet is faulted, not shut down
    const up = new Set((await haproxyView(state.haproxy.socket).catch(() => [])).filter((v) => v.status === 'UP').map((v) => v.name));
    const free = state.members.filter((m) => !busy.has(m.name) && up.has(m.name));
    if (free.length <= 1) continue;
    const m = free[Math.floor(o.rng() * free.length)]!;
    busy.add(m.name);
    report.faults++;
    if (o.rng() < o.killShare) {
      signal(state, m, 'SIGKILL');
      report.kills++;
      pending.push(
        (async () => {
          // the restart is ours to make: the pid is gone before restartMember looks
          await sleep(50);
          await restartMember(o.dir, m.name, o.env);
          report.restarts++;
          busy.delete(m.name);
        })(),
      );
    } else {
      signal(state, m, 'SIGSTOP');
      report.stops++;
      pending.push(
        (async () => {
          await sleep(jitter(o.stopMs));
          signal(state, m, 'SIGCONT');
          busy.delete(m.name);
        })(),
      );
    }
  }
  await Promise.all(pending);
  return report;
}

/** SIGCONT to every member (a test that failed mid-chaos must not leave stopped processes behind). */
export function continueAll(dir: string): void {
  const state = readFleetState(dir);
  for (const m of state?.members ?? []) signal(state!, m, 'SIGCONT');
}

/** SIGKILL to every process of the fleet (cleanup after a failure; `fleetDown` is the normal way). */
export function killAll(dir: string): void {
  const state = readFleetState(dir);
  if (!state) return;
  for (const m of state.members) signal(state, m, 'SIGKILL');
  if (isRunning(state.haproxy.pid, haproxyMarks(state))) process.kill(state.haproxy.pid!, 'SIGKILL');
}
