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
import { checkedMvLoad, checkedShoalLoad, LEDGER_MV, makeShoalFleetConfig } from '../../../support/shoal-fleet-fixture.js';
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
    const t0 = Date.now();
    // where the minutes go (this file is one of the longest in CI)
    const mark = (what: string): void => void process.stderr.write(`shoal chaos: ${what} at ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
    await admin.connect();
    await admin.query(`CREATE DATABASE ${registryDb}`);
    const base = new URL(postgres.url!);
    const { config, principals } = makeShoalFleetConfig(dir, `postgresql://${base.username}@${base.host}/${registryDb}`);
    // the oracle: one instance of the same config, queried directly
    const port = await freePort();
    const oracle = await startServer(['serve', '--config', config, '--port', String(port)], { cwd: dir, port });
    const load = await checkedShoalLoad(oracle.url, principals);
    const adminPrincipal = principals.find((p) => p.name === 'admin')!;
    const mv = await checkedMvLoad(oracle.url, dir, adminPrincipal, 30);
    await oracle.kill('SIGTERM');
    mark('oracle answers recorded');

    const state = JSON.parse(await shoal('fleet', 'up', '-n', '3', '--config', config, '--dir', fleetDir, '--shutdown-grace', '15', '--json')) as FleetState;
    expect(state.members).toHaveLength(3);
    mark('fleet up');
    // a second fleet on the same directory is refused while this one runs
    const again = await shoal('fleet', 'up', '-n', '1', '--config', config, '--dir', fleetDir).then(() => undefined, (e: { stderr: string }) => e.stderr);
    expect(again).toMatch(/FLEET_DIR_IN_USE/);

    let stop = false;
    // a mix: 7 governed queries as three principals, 2 MV reads and 1 refresh in every 10, while
    // the ledger behind the MV moves to a new version every second
    const next = (n: number) => (n % 10 === 0 ? mv.refresh(n) : n % 10 <= 2 ? mv.read(n) : load.next(n));
    const bumping = setInterval(() => mv.bump(), 1000);
    const driving = runLoad({ url: `http://127.0.0.1:${state.port}`, concurrency: 4, next, stop: () => stop });
    const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 100_000);
    const chaos = await runChaos({ dir: fleetDir, faults: 30, rng: seededRandom(seed), everyMs: 600, stopMs: 1500, killShare: 0.3, env: { SHOAL_LOG_LEVEL: 'warn' } }).finally(() => (stop = true));
    const report = await driving;
    clearInterval(bumping);
    mark('chaos over');
    process.stderr.write(
      `shoal chaos (seed ${seed}): ${chaos.faults} faults (${chaos.kills} SIGKILL + restart, ${chaos.stops} SIGSTOP/SIGCONT); ` +
        `${report.total} requests, ${report.ok} right, ${report.wrong} wrong, ${report.errors} errors (${(100 * report.errors / Math.max(1, report.total)).toFixed(2)} %: ${JSON.stringify(report.errorKinds)}; first of each: ${JSON.stringify(report.errorSamples)}); ` +
        `MV refreshes ${JSON.stringify(mv.stats.outcomes)}, ${mv.stats.snapshots.size} snapshots read, ${mv.stats.live} live reads\n`,
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
    mark('every instance back in rotation');

    // MV refreshes ran and published under chaos; after it, one more refresh through the balancer
    // publishes the last version written, and every instance serves it
    expect(mv.stats.outcomes.refreshed ?? 0).toBeGreaterThan(0);
    expect(mv.stats.snapshots.size).toBeGreaterThan(0);
    const last = mv.bump();
    const final = await until('a refresh of the last ledger version', async () => {
      const r = await fetch(`http://127.0.0.1:${state.port}/admin/mv/${LEDGER_MV}/refresh`, { method: 'POST', headers: { authorization: `Bearer ${adminPrincipal.token}` } });
      const b = (await r.json()) as { outcome?: string; reason?: string };
      return r.status === 200 && (b.outcome === 'refreshed' || b.reason === 'up_to_date') ? b : undefined;
    });
    expect(['refreshed', 'skipped']).toContain(final.outcome);
    for (const m of status.members) {
      // each instance resolves the MV through the catalog, cached ≤ 1 s
      const served = await until(`${m.name} serving the last snapshot`, async () => {
        const r = await fetch(`http://127.0.0.1:${m.port}/data/sql`, { method: 'POST', headers: { authorization: `Bearer ${adminPrincipal.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ sql: `SELECT region, total, n FROM ${LEDGER_MV} ORDER BY region` }) });
        const rows = JSON.stringify(((await r.json()) as { rows: unknown }).rows);
        return r.status === 200 && rows === mv.oracle[last] ? (r.headers.get('x-shoal-mv') ?? '') : undefined;
      });
      expect(served).toMatch(/=snapshot:/);
    }

    mark('last MV version served everywhere');
    const down = JSON.parse(await shoal('fleet', 'down', '--dir', fleetDir, '--json')) as { stopped: string[]; killed: string[]; balancerStopped: boolean };
    mark('fleet down');
    expect(down).toEqual({ stopped: ['shoal-1', 'shoal-2', 'shoal-3'], killed: [], balancerStopped: true });
  }, 600_000);
});
