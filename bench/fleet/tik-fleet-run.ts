/**
 * A tik fleet on this machine behind HAProxy (`tik fleet up`: each replica its own store,
 * anti-entropy between them), measured side by side in one run:
 * - write throughput through the balancer with 1, 2 and 3 replicas (new tickets and facts as two
 *   actors), as ratios to one replica behind the same balancer;
 * - sync throughput across the fleet: after a burst of writes spread over 3 replicas (each write
 *   lands on one), the time until every replica holds every acknowledged event, and the events
 *   per second anti-entropy moved; against a `tik sync --pull` of the same store into an empty
 *   one, run just after (the floor for moving those events over loopback HTTP);
 * - bulk: N events appear at once in one replica's store; the time until both others hold them,
 *   as a ratio to one `tik sync --pull` of that replica into an empty store.
 *
 *   npm run build && node dist/bench/fleet/tik-fleet-run.js [--seconds S] [--burst N] [--bulk N] [--concurrency C] [--interval I]
 *
 * Needs HAProxy; loopback only. Reports ratios, never asserts time.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import type { FleetState } from '../../src/core/fleet/fleet-state.js';
import { replicaRoot } from '../../src/tik/cli/commands/fleet.js';
import { closeStore, eventKeys, openStore } from '../../src/tik/store/index.js';
import { killAll, runLoad } from '../../test/support/fleet-chaos.js';
import { tikWrites } from '../../test/support/tik-fleet-writes.js';
import { distBin } from '../../test/support/processes.js';
import { benchStore, benchTicket, writeTicket } from '../tik/fixture.js';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const seconds = arg('--seconds', 10);
const burst = arg('--burst', 3000);
const concurrency = arg('--concurrency', 8);
const interval = arg('--interval', 0.5);
const bulk = arg('--bulk', 10_000);

const run = promisify(execFile);
const tik = async (...args: string[]): Promise<string> => (await run(process.execPath, [distBin('tik'), ...args], { encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, TIK_ACTOR: 'seed' } })).stdout;
const CONFORMANCE = new URL('../../../../shared/tik-conformance/', import.meta.url);

const dir = mkdtempSync(join(tmpdir(), 'bench-tik-fleet-'));
const src = join(dir, 'src');
mkdirSync(src);
await tik('--root', src, 'init');
{
  const store = await openStore(src);
  await store.writeNamedProcess('support-request', readFileSync(new URL('processes/support-request.edn', CONFORMANCE), 'utf8'));
  await closeStore(store);
}
benchStore(src); // the bulk phase's process, known to every replica
const seeded: string[] = [];
for (let i = 0; i < 8; i++) seeded.push((await tik('--root', src, 'new', 'support-request', '--title', `seed ${i}`)).trim().split(/\s+/)[0]!);

const writes = (acked: Set<string>) => tikWrites(seeded, acked);

async function untilConverged(fleetDir: string, state: FleetState, keys: ReadonlySet<string>): Promise<void> {
  for (let polls = 0; (await missingOn(fleetDir, state, keys)) > 0; polls++) {
    if (polls > 6000) throw new Error('the fleet did not converge in 10 minutes');
    await new Promise((res) => setTimeout(res, 100));
  }
}

async function missingOn(fleetDir: string, state: FleetState, acked: ReadonlySet<string>): Promise<number> {
  let missing = 0;
  for (const m of state.members) {
    const s = await openStore(replicaRoot(fleetDir, m.name));
    try {
      const have = new Set(await eventKeys(s));
      for (const k of acked) if (!have.has(k)) missing++;
    } finally {
      await closeStore(s);
    }
  }
  return missing;
}

const up = async (n: number, fleetDir: string): Promise<FleetState> =>
  JSON.parse(await tik('--root', src, 'fleet', 'up', '-n', String(n), '--dir', fleetDir, '--interval', String(interval), '--json', '--', '--open-writes')) as FleetState;

try {
  const rates: { n: number; rate: number; errors: number }[] = [];
  for (const n of [1, 2, 3]) {
    const fleetDir = join(dir, `fleet-${n}`);
    const state = await up(n, fleetDir);
    const acked = new Set<string>();
    const warm = Date.now() + 1000;
    await runLoad({ url: `http://127.0.0.1:${state.port}`, concurrency, next: writes(acked), stop: () => Date.now() > warm });
    const end = Date.now() + seconds * 1000;
    const r = await runLoad({ url: `http://127.0.0.1:${state.port}`, concurrency, next: writes(acked), stop: () => Date.now() > end });
    rates.push({ n, rate: r.rate, errors: r.errors });
    await tik('fleet', 'down', '--dir', fleetDir);
    if (r.wrong > 0) throw new Error(`wrong answers with ${n} replicas: ${r.wrongSamples.join('\n')}`);
  }
  for (const r of rates) {
    process.stdout.write(`writes, ${r.n} replica(s) behind HAProxy: ${r.rate.toFixed(1)} req/s  ${(r.rate / rates[0]!.rate).toFixed(2)}× one replica  (${r.errors} errors)\n`);
  }

  // sync across the fleet
  const fleetDir = join(dir, 'fleet-sync');
  const state = await up(3, fleetDir);
  try {
    // (1) a burst of writes through the balancer (each lands on one replica): the lag from the last
    // acknowledgement until every replica holds every acknowledged event
    const acked = new Set<string>();
    let sent = 0;
    const started = performance.now();
    const r = await runLoad({ url: `http://127.0.0.1:${state.port}`, concurrency, next: writes(acked), stop: () => sent++ >= burst });
    const written = performance.now();
    await untilConverged(fleetDir, state, acked);
    const lagS = (performance.now() - written) / 1000;
    process.stdout.write(
      `sync across 3 replicas (anti-entropy every ${interval} s): ${acked.size} writes acknowledged in ${((written - started) / 1000).toFixed(1)} s (${r.errors} errors); ` +
        `every replica held every one ${lagS.toFixed(2)} s after the last acknowledgement\n`,
    );

    // (2) bulk: `bulk` events written into one replica's store at once (as a CLI import on that
    // host would); the time until the other two hold them all, against a `tik sync --pull` of
    // that replica into an empty store (the floor for moving them over HTTP)
    const staging = join(dir, 'staging');
    const def = benchStore(staging);
    const bulkKeys = new Set<string>();
    const tickets = Math.ceil(bulk / 100);
    const batches = [];
    for (let t = 0; t < tickets; t++) {
      const ticket = benchTicket(t);
      const evs = writeTicket(staging, def, ticket, 100);
      for (const e of evs) bulkKeys.add(`${ticket}/${e.id}`);
      batches.push({ ticket, events: evs.map((e) => ({ id: e.id, bytes: readFileSync(join(staging, 'tickets', ticket, 'events', `${e.id}.edn`)) })) });
    }
    const target = replicaRoot(fleetDir, state.members[0]!.name);
    const into = await openStore(target);
    const t1 = performance.now();
    for (const b of batches) {
      if (into.appendBatch) await into.appendBatch(b.ticket, b.events);
      else for (const e of b.events) await into.append(b.ticket, e.id, e.bytes);
    }
    await closeStore(into);
    const writeS = (performance.now() - t1) / 1000;
    await untilConverged(fleetDir, state, bulkKeys);
    const spreadS = (performance.now() - t1) / 1000;
    const empty = join(dir, 'pull');
    mkdirSync(empty);
    await tik('--root', empty, 'init');
    const t2 = performance.now();
    await tik('--root', empty, 'sync', '--pull', `http://127.0.0.1:${state.members[0]!.port}`);
    const pullS = (performance.now() - t2) / 1000;
    const first = await openStore(target);
    const events = (await eventKeys(first)).length;
    await closeStore(first);
    process.stdout.write(
      `bulk: ${bulkKeys.size} events written into one replica's store in ${writeS.toFixed(2)} s reached both others ${spreadS.toFixed(2)} s after the write began = ${((2 * bulkKeys.size) / spreadS).toFixed(0)} event copies/s; ` +
        `tik sync --pull of that replica (${events} events) into an empty store: ${pullS.toFixed(2)} s = ${(events / pullS).toFixed(0)} events/s; ` +
        `fleet spread time ${(spreadS / pullS).toFixed(2)}× one pull\n`,
    );
  } finally {
    await tik('fleet', 'down', '--dir', fleetDir).catch(() => killAll(fleetDir));
  }
} finally {
  for (const n of [1, 2, 3]) killAll(join(dir, `fleet-${n}`));
  rmSync(dir, { recursive: true, force: true });
}
