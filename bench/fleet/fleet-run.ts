/**
 * A shoal fleet on this machine behind HAProxy: throughput with 1, 2 and 3 instances (ratios to
 * one instance behind the same balancer, measured in this run), then a chaos run with ≥ 100
 * faults (governed queries, MV reads and MV refreshes) that reports the failover error rate. Every answer is checked against a single-instance
 * oracle; a wrong answer fails the run.
 *
 *   npm run build && node dist/bench/fleet/fleet-run.js [--seconds S] [--faults N] [--concurrency C]
 *
 * Needs HAProxy and PostgreSQL binaries (the registry); loopback only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { fleetDown, fleetUp } from '../../src/core/fleet/fleet.js';
import { continueAll, killAll, runChaos, runLoad, seededRandom } from '../../test/support/fleet-chaos.js';
import { distBin, startServer } from '../../test/support/processes.js';
import { freePort, isMissing, startPostgres } from '../../test/support/services.js';
import { checkedMvLoad, checkedShoalLoad, makeShoalFleetConfig } from '../../test/support/shoal-fleet-fixture.js';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const seconds = arg('--seconds', 10);
const faults = arg('--faults', 100);
const concurrency = arg('--concurrency', 8);
const seed = arg('--seed', Date.now() % 100_000);
const env = { SHOAL_LOG_LEVEL: 'warn' };

const server = await startPostgres();
if (isMissing(server)) throw new Error(`bench/fleet needs PostgreSQL: ${server.missing}`);
const dir = mkdtempSync(join(tmpdir(), 'bench-fleet-'));
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
await admin.query('CREATE DATABASE bench_fleet_registry');
const base = new URL(server.url);
const { config, principals } = makeShoalFleetConfig(dir, `postgresql://${base.username}@${base.host}/bench_fleet_registry`);
const oraclePort = await freePort();
const oracle = await startServer(['serve', '--config', config, '--port', String(oraclePort)], { cwd: dir, port: oraclePort });
const load = await checkedShoalLoad(oracle.url, principals);
const mv = await checkedMvLoad(oracle.url, dir, principals.find((p) => p.name === 'admin')!, 100);
await oracle.kill('SIGTERM');

const up = (n: number, fleetDir: string) =>
  fleetUp({
    system: 'shoal',
    dir: fleetDir,
    n,
    bin: distBin('shoal'),
    retryOn: 'read',
    stopBoundMs: 20_000,
    env,
    memberArgs: (_i, port) => ['serve', '--config', config, '--port', String(port), '--drain-delay', '3', '--shutdown-grace', '15'],
  });
const drive = (port: number, ms: number) => {
  const end = Date.now() + ms;
  return runLoad({ url: `http://127.0.0.1:${port}`, concurrency, next: load.next, stop: () => Date.now() > end });
};

try {
  const rates: { n: number; rate: number; wrong: number; errors: number }[] = [];
  for (const n of [1, 2, 3]) {
    const fleetDir = join(dir, `fleet-${n}`);
    const state = await up(n, fleetDir);
    await drive(state.port, 2000); // warm every instance's plan and result caches
    const r = await drive(state.port, seconds * 1000);
    rates.push({ n, rate: r.rate, wrong: r.wrong, errors: r.errors });
    await fleetDown(fleetDir);
    if (r.wrong > 0) throw new Error(`wrong answers with ${n} instances: ${r.wrongSamples.join('\n')}`);
  }
  for (const r of rates) {
    process.stdout.write(`throughput, ${r.n} instance(s) behind HAProxy: ${r.rate.toFixed(1)} req/s  ${(r.rate / rates[0]!.rate).toFixed(2)}× one instance  (${r.errors} errors, ${r.wrong} wrong)\n`);
  }

  const chaosDir = join(dir, 'fleet-chaos');
  const state = await up(3, chaosDir);
  let stop = false;
  // the chaos load adds MV reads (2 in 10) and refreshes (1 in 10) while the ledger moves on every second
  const next = (n: number) => (n % 10 === 0 ? mv.refresh(n) : n % 10 <= 2 ? mv.read(n) : load.next(n));
  const bumping = setInterval(() => mv.bump(), 1000);
  const driving = runLoad({ url: `http://127.0.0.1:${state.port}`, concurrency, next, stop: () => stop });
  try {
    const chaos = await runChaos({ dir: chaosDir, faults, rng: seededRandom(seed), everyMs: 500, stopMs: 1500, killShare: 0.3, env }).finally(() => (stop = true));
    const r = await driving;
    clearInterval(bumping);
    process.stdout.write(
      `chaos (seed ${seed}): ${chaos.faults} faults (${chaos.kills} SIGKILL + restart, ${chaos.stops} SIGSTOP/SIGCONT) under ${concurrency} connections: ` +
        `${r.total} requests, ${r.wrong} wrong, ${r.errors} errors = ${((100 * r.errors) / Math.max(1, r.total)).toFixed(2)} % failover error rate ${JSON.stringify(r.errorKinds)}; ` +
        `MV refreshes ${JSON.stringify(mv.stats.outcomes)}, ${mv.stats.snapshots.size} snapshots read\n`,
    );
    if (r.wrong > 0) throw new Error(`wrong answers under chaos: ${r.wrongSamples.join('\n')}`);
  } finally {
    continueAll(chaosDir);
    await fleetDown(chaosDir).catch(() => killAll(chaosDir));
  }
} finally {
  for (const n of [1, 2, 3]) killAll(join(dir, `fleet-${n}`));
  await admin.end();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
