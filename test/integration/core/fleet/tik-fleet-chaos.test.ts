/**
 * Chaos under load for tik (issue 16), CI-sized and loopback only: `tik fleet up -n 3` (each
 * replica its own store, anti-entropy between them) behind HAProxy; writes as two actors through
 * the balancer while a chaos loop SIGKILLs (and restarts) and SIGSTOPs (and continues) random
 * replicas, at least 30 faults. Every acknowledged write is then found on every replica after
 * convergence: zero lost writes. Refused writes during failover are counted and printed.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { FleetStatus } from '../../../../src/core/fleet/fleet.js';
import type { FleetState } from '../../../../src/core/fleet/fleet-state.js';
import { closeStore, eventKeys, openStore } from '../../../../src/tik/store/index.js';
import { replicaRoot } from '../../../../src/tik/cli/commands/fleet.js';
import { continueAll, killAll, runChaos, runLoad, seededRandom } from '../../../support/fleet-chaos.js';
import { tikWrites } from '../../../support/tik-fleet-writes.js';
import { haproxyOrSkip } from '../../../support/haproxy.js';
import { distBin } from '../../../support/processes.js';
import { until } from '../../../support/until.js';
import { CONFORMANCE } from '../../../tik/cli/harness.js';

const run = promisify(execFile);
const tik = async (...args: string[]): Promise<string> => (await run(process.execPath, [distBin('tik'), ...args], { encoding: 'utf8', env: { ...process.env, TIK_ACTOR: 'seed' } })).stdout;
const haproxy = haproxyOrSkip();

describe.skipIf(haproxy.skip)('a tik fleet behind HAProxy under chaos', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tik-fleet-chaos-'));
  const fleetDir = join(dir, 'fleet');
  afterAll(() => {
    continueAll(fleetDir);
    killAll(fleetDir);
    rmSync(dir, { recursive: true, force: true });
  });

  it('loses no acknowledged write through ≥ 30 SIGKILL/SIGSTOP faults', async () => {
    const src = join(dir, 'src');
    mkdirSync(src);
    await tik('--root', src, 'init');
    const store = await openStore(src);
    await store.writeNamedProcess('support-request', readFileSync(join(CONFORMANCE, 'processes/support-request.edn'), 'utf8'));
    await closeStore(store);
    // tickets every replica holds from the start: facts are written to them through the balancer
    const seeded: string[] = [];
    for (let i = 0; i < 3; i++) seeded.push((await tik('--root', src, 'new', 'support-request', '--title', `seed ${i}`)).trim().split(/\s+/)[0]!);

    const state = JSON.parse(await tik('--root', src, 'fleet', 'up', '-n', '3', '--dir', fleetDir, '--interval', '0.5', '--json', '--', '--open-writes')) as FleetState;
    expect(state.members).toHaveLength(3);

    const acked = new Set<string>(); // ticket/event-id of every acknowledged write
    const next = tikWrites(seeded, acked);
    let stop = false;
    const driving = runLoad({ url: `http://127.0.0.1:${state.port}`, concurrency: 4, next, stop: () => stop });
    const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 100_000);
    const chaos = await runChaos({ dir: fleetDir, faults: 30, rng: seededRandom(seed), everyMs: 500, stopMs: 1500, killShare: 0.3 }).finally(() => (stop = true));
    const report = await driving;
    process.stderr.write(
      `tik chaos (seed ${seed}): ${chaos.faults} faults (${chaos.kills} SIGKILL + restart, ${chaos.stops} SIGSTOP/SIGCONT); ` +
        `${report.total} writes, ${report.ok} acknowledged, ${report.wrong} wrong, ${report.errors} refused (${(100 * report.errors / Math.max(1, report.total)).toFixed(2)} %: ${JSON.stringify(report.errorKinds)}; first of each: ${JSON.stringify(report.errorSamples)})\n`,
    );
    expect(chaos.faults).toBeGreaterThanOrEqual(30);
    expect(report.wrongSamples).toEqual([]);
    expect(acked.size).toBeGreaterThan(0);

    // convergence: every replica's own store holds every acknowledged write
    const missing = async (): Promise<string[]> => {
      const out: string[] = [];
      for (const m of state.members) {
        const s = await openStore(replicaRoot(fleetDir, m.name));
        try {
          const have = new Set(await eventKeys(s));
          for (const k of acked) if (!have.has(k)) out.push(`${m.name}: ${k}`);
        } finally {
          await closeStore(s);
        }
      }
      return out;
    };
    await until('every acknowledged write on every replica', async () => ((await missing()).length === 0 ? true : undefined), 180_000).catch(() => undefined);
    const status = JSON.parse(await tik('fleet', 'status', '--dir', fleetDir, '--json')) as FleetStatus;
    expect(status.members.every((m) => m.running)).toBe(true);
    const down = JSON.parse(await tik('fleet', 'down', '--dir', fleetDir, '--json')) as { stopped: string[]; killed: string[] };
    expect(down.killed).toEqual([]);
    expect(await missing()).toEqual([]);
  }, 600_000);
});
