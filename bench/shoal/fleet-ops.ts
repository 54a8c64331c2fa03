/**
 * Fleet operations, with real `shoal serve` processes (issue 16):
 * - config-change propagation: a catalog change through one instance's admin API, timed until
 *   every instance of the fleet serves the new epoch (`GET /data/catalog` reports the epoch the
 *   instance derived its catalog from). p50/p99 over every (change, instance), on a PostgreSQL
 *   registry (LISTEN/NOTIFY wakes the epoch watch) and on a SQLite registry (the epoch is polled),
 *   each as a ratio to the poll interval;
 * - MV lease takeover after SIGKILL: a writer holding the refresh lease is SIGKILLed mid-refresh,
 *   and the time until another instance's refresh loop publishes is measured for several lease
 *   lengths, as a ratio to the lease.
 * Reports ratios and milliseconds, never asserts. `npm run build && node dist/bench/shoal/fleet-ops.js [--quick]`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { mvFleetConfig, mvFleetOrders } from '../../test/support/mv-fleet-config.js';
import { startServer, type ServerProcess } from '../../test/support/processes.js';
import { freePort, isMissing, startPostgres } from '../../test/support/services.js';

const ADMIN = { 'content-type': 'application/json', 'x-provisa-role': 'admin' };
const MV = 'sales.by_region';
type Json = Record<string, unknown>;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const config = (registryUrl: string): string => mvFleetConfig(registryUrl);
const orders = mvFleetOrders;

async function json(url: string, path: string, init?: RequestInit): Promise<Json> {
  // no content-type without a body: Fastify refuses an empty JSON body
  const headers = init?.body === undefined ? { 'x-provisa-role': 'admin' } : ADMIN;
  const r = await fetch(`${url}${path}`, { headers, ...init });
  return { status: r.status, ...((await r.json()) as Json) };
}

class Fleet {
  readonly servers: ServerProcess[] = [];
  constructor(readonly dir: string) {}

  async start(env: Record<string, string>, pollMs: number): Promise<ServerProcess> {
    const port = await freePort();
    const cwd = mkdtempSync(join(tmpdir(), 'shoal-fleet-ops-instance-'));
    const s = await startServer(['serve', '--config', join(this.dir, 'shoal.yaml'), '--port', String(port), '--poll-ms', String(pollMs)], {
      cwd,
      port,
      env: { SHOAL_MV_TICK_MS: '0', ...env },
    });
    this.servers.push(s);
    return s;
  }

  async stop(): Promise<void> {
    for (const s of this.servers) {
      if (s.child.signalCode === null && s.child.exitCode === null) s.child.kill('SIGCONT');
      await s.kill();
    }
  }
}

/** Each instance's catalog epoch, polled every 2 ms until it reaches `epoch`: ms after `t0`. */
async function reached(s: ServerProcess, epoch: number, t0: number, timeoutMs = 30_000): Promise<number> {
  for (;;) {
    const c = await json(s.url, '/data/catalog');
    if (typeof c.epoch === 'number' && c.epoch >= epoch) return performance.now() - t0;
    if (performance.now() - t0 > timeoutMs) throw new Error(`${s.url} did not reach epoch ${epoch} within ${timeoutMs} ms`);
    await sleep(2);
  }
}

export interface PropagationResult {
  readonly registry: string;
  readonly instances: number;
  readonly changes: number;
  readonly pollMs: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

async function propagation(registry: string, registryUrl: string, instances: number, changes: number, pollMs: number): Promise<PropagationResult> {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-fleet-ops-'));
  const fleet = new Fleet(dir);
  try {
    writeFileSync(join(dir, 'orders.csv'), orders(1));
    writeFileSync(join(dir, 'shoal.yaml'), config(registryUrl));
    for (let i = 0; i < instances; i++) await fleet.start({}, pollMs);
    const samples: number[] = [];
    for (let k = 0; k < changes; k++) {
      // spread the changes over the poll cycle: a change lands at a random phase of each watch
      await sleep(Math.floor(Math.random() * pollMs));
      const writer = fleet.servers[k % instances]!;
      const t0 = performance.now();
      const r = await json(writer.url, '/admin/roles', { method: 'POST', body: JSON.stringify({ id: `bench_${k}`, capabilities: [], domain_access: [] }) });
      if (r.status !== 200) throw new Error(`registering a role failed: ${JSON.stringify(r)}`);
      const epoch = Number((await json(writer.url, '/admin/epoch')).epoch);
      samples.push(...(await Promise.all(fleet.servers.map((s) => reached(s, epoch, t0)))));
    }
    samples.sort((a, b) => a - b);
    return { registry, instances, changes, pollMs, p50: percentile(samples, 50), p99: percentile(samples, 99), max: samples.at(-1)! };
  } finally {
    await fleet.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface TakeoverResult {
  readonly leaseMs: number;
  readonly tickMs: number;
  /** SIGKILL of the lease holder → another instance's snapshot published. */
  readonly takeoverMs: number;
}

async function takeover(registryUrl: string, leaseMs: number, tickMs: number): Promise<TakeoverResult> {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-fleet-ops-mv-'));
  const fleet = new Fleet(dir);
  try {
    writeFileSync(join(dir, 'orders.csv'), orders(1));
    writeFileSync(join(dir, 'shoal.yaml'), config(registryUrl));
    const lease = String(leaseMs);
    const reader = await fleet.start({ SHOAL_MV_LEASE_MS: lease }, 200);
    const first = await json(reader.url, `/admin/mv/${MV}/refresh`, { method: 'POST' });
    if (first.outcome !== 'refreshed' && first.outcome !== 'skipped') throw new Error(`first refresh: ${JSON.stringify(first)}`);
    const before = String((await json(reader.url, `/admin/mv/${MV}`)).snapshotId);
    const doomed = await fleet.start({ SHOAL_MV_LEASE_MS: lease, SHOAL_MV_FAULT_COMMIT_DELAY_MS: '600000' }, 200);
    const doomedWriter = String((await json(doomed.url, '/admin/mv')).writer);
    // the rescuer's loop runs all along: it takes the MV over as soon as the lease has expired
    await fleet.start({ SHOAL_MV_LEASE_MS: lease, SHOAL_MV_TICK_MS: String(tickMs) }, 200);
    writeFileSync(join(dir, 'orders.csv'), orders(2));
    void json(doomed.url, `/admin/mv/${MV}/refresh`, { method: 'POST' }).catch(() => undefined);
    for (;;) {
      if ((await json(reader.url, `/admin/mv/${MV}`)).writer === doomedWriter) break;
      await sleep(20);
    }
    // let a heartbeat or two renew the lease, so the kill lands at a random phase of it
    await sleep(leaseMs * (0.5 + Math.random()));
    const t0 = performance.now();
    await doomed.kill('SIGKILL');
    for (;;) {
      const row = await json(reader.url, `/admin/mv/${MV}`);
      if (row.status === 'fresh' && row.writer === null && typeof row.snapshotId === 'string' && row.snapshotId !== before) break;
      if (performance.now() - t0 > 20 * leaseMs + 60_000) throw new Error('no instance took the MV over');
      await sleep(5);
    }
    return { leaseMs, tickMs, takeoverMs: performance.now() - t0 };
  } finally {
    await fleet.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchFleetOps(quick: boolean): Promise<{ propagation: PropagationResult[]; takeover: TakeoverResult[] }> {
  const changes = quick ? 5 : 20;
  const out: { propagation: PropagationResult[]; takeover: TakeoverResult[] } = { propagation: [], takeover: [] };
  out.propagation.push(await propagation('SQLite (polled)', 'sqlite:///registry.db', 3, changes, 2000));
  out.propagation.push(await propagation('SQLite (polled)', 'sqlite:///registry.db', 3, changes, 500));
  const server = await startPostgres();
  if (isMissing(server)) {
    process.stderr.write(`bench: no PostgreSQL registry rows: ${server.missing}\n`);
  } else {
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    try {
      let n = 0;
      const database = async (): Promise<string> => {
        const db = `fleet_ops_${process.pid}_${n++}`;
        await admin.query(`CREATE DATABASE ${db}`);
        const base = new URL(server.url);
        return `postgresql://${base.username}@${base.host}/${db}`;
      };
      out.propagation.push(await propagation('PostgreSQL (LISTEN/NOTIFY)', await database(), 3, changes, 2000));
      for (const leaseMs of quick ? [1000, 3000] : [1000, 2000, 4000, 8000]) {
        out.takeover.push(await takeover(await database(), leaseMs, 100));
      }
    } finally {
      await admin.end();
      await server.stop();
    }
  }
  return out;
}

const isMain = process.argv[1]?.endsWith('fleet-ops.js') ?? false;
if (isMain) {
  const r = await benchFleetOps(process.argv.includes('--quick'));
  process.stdout.write('config-change propagation (3 instances; a change through one instance\'s admin API until every instance serves its epoch)\n');
  for (const p of r.propagation) {
    process.stdout.write(
      `  ${p.registry.padEnd(28)} poll ${String(p.pollMs).padStart(5)} ms  p50 ${p.p50.toFixed(0).padStart(5)} ms (${(p.p50 / p.pollMs).toFixed(2)}× poll)  p99 ${p.p99.toFixed(0).padStart(5)} ms (${(p.p99 / p.pollMs).toFixed(2)}× poll)  max ${p.max.toFixed(0)} ms  [${p.changes} changes × ${p.instances}]\n`,
    );
  }
  process.stdout.write('MV lease takeover after SIGKILL of the holder (PostgreSQL registry; rescuer tick 100 ms)\n');
  for (const t of r.takeover) {
    process.stdout.write(`  lease ${String(t.leaseMs).padStart(5)} ms  takeover ${t.takeoverMs.toFixed(0).padStart(6)} ms  (${(t.takeoverMs / t.leaseMs).toFixed(2)}× lease)\n`);
  }
}
