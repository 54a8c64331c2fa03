/**
 * Chaos under load (issue 16), CI-sized and loopback only: `shoal fleet up -n 3` behind HAProxy,
 * governed queries as three principals through the balancer while a chaos loop SIGKILLs (and
 * restarts) and SIGSTOPs (and continues) random instances, at least 30 faults. The instances share
 * a PostgreSQL registry and the snapshot directory beside the config. Every answer is
 * held to a single-instance oracle of the same config: zero wrong answers. Errors during failover
 * are counted and printed, not asserted.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { FleetStatus } from '../../../../src/core/fleet/fleet.js';
import type { FleetState } from '../../../../src/core/fleet/fleet-state.js';
import { continueAll, killAll, runChaos, runLoad, seededRandom } from '../../../support/fleet-chaos.js';
import { distBin, startServer } from '../../../support/processes.js';
import { freePort } from '../../../support/services.js';
import { checkedShoalLoad, makeShoalFleetConfig } from '../../../support/shoal-fleet-fixture.js';
import { haproxyOrSkip } from '../../../support/haproxy.js';
import { service } from '../../../support/service.js';
import { until } from '../../../support/until.js';

const run = promisify(execFile);
const shoal = async (...args: string[]): Promise<string> => (await run(process.execPath, [distBin('shoal'), ...args], { encoding: 'utf8', env: { ...process.env, SHOAL_LOG_LEVEL: 'warn' } })).stdout;
const haproxy = haproxyOrSkip();
const postgres = service('postgres');

describe.skipIf(haproxy.skip || postgres.skip)('a shoal fleet behind HAProxy under chaos', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-fleet-chaos-'));
  const fleetDir = join(dir, 'fleet');
  const registryDb = `fleet_chaos_${process.pid}_${Date.now() % 1_000_000}`;
  const admin = new pg.Client({ connectionString: postgres.url });
  afterAll(async () => {
    continueAll(fleetDir);
    killAll(fleetDir);
    rmSync(dir, { recursive: true, force: true });
    await admin.query(`DROP DATABASE IF EXISTS ${registryDb} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  });

  it('gives only the oracle’s answers through ≥ 30 SIGKILL/SIGSTOP faults, and stops cleanly', async () => {
    // the fleet's one coordination point: a PostgreSQL registry (refresh catalog, tokens, audit log)
    await admin.connect();
    await admin.query(`CREATE DATABASE ${registryDb}`);
    const base = new URL(postgres.url!);
    const { config, principals } = makeShoalFleetConfig(dir, `postgresql://${base.username}@${base.host}/${registryDb}`);
    // the oracle: one instance of the same config, queried directly
    const port = await freePort();
    const oracle = await startServer(['serve', '--config', config, '--port', String(port)], { cwd: dir, port });
    const load = await checkedShoalLoad(oracle.url, principals);
    await oracle.kill('SIGTERM');

    const state = JSON.parse(await shoal('fleet', 'up', '-n', '3', '--config', config, '--dir', fleetDir, '--shutdown-grace', '15', '--json')) as FleetState;
    expect(state.members).toHaveLength(3);
    // a second fleet on the same directory is refused while this one runs
    const again = await shoal('fleet', 'up', '-n', '1', '--config', config, '--dir', fleetDir).then(() => undefined, (e: { stderr: string }) => e.stderr);
    expect(again).toMatch(/FLEET_DIR_IN_USE/);

    let stop = false;
    const driving = runLoad({ url: `http://127.0.0.1:${state.port}`, concurrency: 4, next: load.next, stop: () => stop });
    const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 100_000);
    const chaos = await runChaos({ dir: fleetDir, faults: 30, rng: seededRandom(seed), everyMs: 600, stopMs: 1500, killShare: 0.3, env: { SHOAL_LOG_LEVEL: 'warn' } }).finally(() => (stop = true));
    const report = await driving;
    process.stderr.write(
      `shoal chaos (seed ${seed}): ${chaos.faults} faults (${chaos.kills} SIGKILL + restart, ${chaos.stops} SIGSTOP/SIGCONT); ` +
        `${report.total} requests, ${report.ok} right, ${report.wrong} wrong, ${report.errors} errors (${(100 * report.errors / Math.max(1, report.total)).toFixed(2)} %: ${JSON.stringify(report.errorKinds)}; first of each: ${JSON.stringify(report.errorSamples)})\n`,
    );
    expect(chaos.faults).toBeGreaterThanOrEqual(30);
    expect(chaos.restarts).toBe(chaos.kills);
    expect(report.wrongSamples).toEqual([]);
    expect(report.wrong).toBe(0);
    expect(report.ok).toBeGreaterThan(0);

    // every restarted instance is back in rotation
    const status = await until('every instance UP in HAProxy', async () => {
      const s = JSON.parse(await shoal('fleet', 'status', '--dir', fleetDir, '--json')) as FleetStatus;
      return s.members.every((m) => m.running && m.ready === 'ready' && m.balancer?.status === 'UP') ? s : undefined;
    });
    expect(status.balancer.running).toBe(true);

    const down = JSON.parse(await shoal('fleet', 'down', '--dir', fleetDir, '--json')) as { stopped: string[]; killed: string[]; balancerStopped: boolean };
    expect(down).toEqual({ stopped: ['shoal-1', 'shoal-2', 'shoal-3'], killed: [], balancerStopped: true });
  }, 600_000);
});
