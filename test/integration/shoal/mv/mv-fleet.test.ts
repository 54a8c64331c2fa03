/**
 * MV refresh across a fleet of real `shoal serve` processes sharing one registry (SQLite file and
 * PostgreSQL) and one snapshot store directory (law S3):
 * - three instances told to refresh the same MV at the same moment: one `refreshed`, the others
 *   `skipped`; one refresh per (definition, input) version; a definition change forces one more;
 * - the writer SIGKILLed mid-refresh: after its lease expires another instance's loop completes it,
 *   and readers running throughout only ever see one whole version (never empty, partial, mixed);
 * - a writer paused past its lease (SIGSTOP/SIGCONT) cannot publish: `lost_lease`, its snapshot
 *   never visible and discarded.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../../../support/processes.js';
import { service } from '../../../support/service.js';
import { freePort } from '../../../support/services.js';
import { MV_FLEET_VIEW_SQL, mvFleetConfig, mvFleetOrders } from '../../../support/mv-fleet-config.js';

const postgres = service('postgres');
const MV = 'sales.by_region';
const ADMIN = { 'content-type': 'application/json', 'x-provisa-role': 'admin' };

type Json = Record<string, unknown>;

async function post(url: string, path: string): Promise<Json> {
  const r = await fetch(`${url}${path}`, { method: 'POST', headers: { 'x-provisa-role': 'admin' } });
  return { status: r.status, ...((await r.json()) as Json) };
}
async function get(url: string, path: string): Promise<Json> {
  const r = await fetch(`${url}${path}`, { headers: { 'x-provisa-role': 'admin' } });
  return (await r.json()) as Json;
}
async function read(url: string): Promise<{ status: number; mv: string | null; rows: unknown[][] }> {
  const r = await fetch(`${url}/data/sql`, {
    method: 'POST',
    headers: ADMIN,
    body: JSON.stringify({ sql: `SELECT region, total, n FROM ${MV} ORDER BY region` }),
  });
  const body = (await r.json()) as { rows?: unknown[][] };
  return { status: r.status, mv: r.headers.get('x-shoal-mv'), rows: body.rows ?? [] };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(what: string, f: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const orders = mvFleetOrders;
function expected(k: number): unknown[][] {
  return [
    ['apac', 5 * k, 1],
    ['eu', 40 * k, 2],
    ['us', 20 * k, 1],
  ];
}

const VIEW_SQL = MV_FLEET_VIEW_SQL;
const config = mvFleetConfig;

const CATALOGS = [
  { name: 'SQLite', skip: false },
  { name: 'PostgreSQL', skip: postgres.skip },
] as const;

for (const catalog of CATALOGS) {
  describe.skipIf(catalog.skip)(`MV refresh across real instances (${catalog.name} catalog)`, () => {
    let dir: string;
    let registryUrl: string;
    let dropDb: (() => Promise<void>) | undefined;
    const servers: ServerProcess[] = [];

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'shoal-mv-fleet-'));
      if (catalog.name === 'PostgreSQL') {
        const admin = new pg.Client({ connectionString: postgres.url });
        await admin.connect();
        const db = `mv_fleet_${process.pid}_${Date.now()}`;
        await admin.query(`CREATE DATABASE ${db}`);
        const base = new URL(postgres.url!);
        registryUrl = `postgresql://${base.username}@${base.host}/${db}`;
        dropDb = async () => {
          await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch(() => undefined);
          await admin.end();
        };
      } else {
        registryUrl = 'sqlite:///registry.db';
      }
      writeFileSync(join(dir, 'orders.csv'), orders(1));
      writeFileSync(join(dir, 'shoal.yaml'), config(registryUrl));
    });

    afterAll(async () => {
      for (const s of servers) {
        if (s.child.signalCode === null && s.child.exitCode === null) s.child.kill('SIGCONT');
        await s.kill();
      }
      await dropDb?.();
      rmSync(dir, { recursive: true, force: true });
    });

    const start = async (env: Record<string, string>): Promise<ServerProcess> => {
      const port = await freePort();
      const cwd = mkdtempSync(join(tmpdir(), 'shoal-mv-instance-'));
      const s = await startServer(['serve', '--config', join(dir, 'shoal.yaml'), '--port', String(port), '--poll-ms', '200'], {
        cwd,
        port,
        env: { SHOAL_MV_TICK_MS: '0', ...env },
      });
      servers.push(s);
      return s;
    };
    const writerOf = async (s: ServerProcess): Promise<string> => String((await get(s.url, '/admin/mv')).writer);

    it('three instances told to refresh at the same moment: one refreshed, the others skipped; a definition change forces one more', async () => {
      // a short pause before each commit keeps the winner's lease live while the others claim
      const fleet = await Promise.all([1, 2, 3].map(() => start({ SHOAL_MV_FAULT_COMMIT_DELAY_MS: '300' })));
      // never materialized: served live, and the response says so
      const live = await read(fleet[0]!.url);
      expect(live).toEqual({ status: 200, mv: `${MV}=live`, rows: expected(1) });

      const outcomes = await Promise.all(fleet.map((s) => post(s.url, `/admin/mv/${MV}/refresh`)));
      expect(outcomes.map((o) => o.outcome).sort()).toEqual(['refreshed', 'skipped', 'skipped']);
      const winner = outcomes.find((o) => o.outcome === 'refreshed')!;
      for (const o of outcomes.filter((x) => x.outcome === 'skipped')) expect(['held', 'up_to_date']).toContain(o.reason);

      // every instance now reads the one published snapshot
      for (const s of fleet) expect(await read(s.url)).toEqual({ status: 200, mv: `${MV}=snapshot:${String(winner.snapshotId)}`, rows: expected(1) });

      // told again with nothing changed: nobody refreshes
      const again = await Promise.all(fleet.map((s) => post(s.url, `/admin/mv/${MV}/refresh`)));
      expect(again.map((o) => [o.outcome, o.reason])).toEqual([['skipped', 'up_to_date'], ['skipped', 'up_to_date'], ['skipped', 'up_to_date']]);

      // a definition change (inputs unchanged) through one instance's admin API: one more refresh
      const changed = VIEW_SQL.replace('count(*) AS n', 'count(id) AS n');
      const reg = await fetch(`${fleet[1]!.url}/admin/tables`, {
        method: 'POST',
        headers: ADMIN,
        body: JSON.stringify({
          source_id: '__derived__', domain_id: 'sales', table: 'by_region', materialize: true, mv_refresh_interval: 3600, view_sql: changed,
          columns: [{ name: 'region', data_type: 'varchar' }, { name: 'total', data_type: 'bigint' }, { name: 'n', data_type: 'bigint' }],
        }),
      });
      expect(reg.status).toBe(200);
      // wait until every instance serves the new definition (poll interval 200 ms)
      await until('the fleet to load the new definition', async () => {
        const seen = await Promise.all(fleet.map(async (s) => ((await get(s.url, '/admin/mv')).mvs as Json[])[0]?.view_sql === changed));
        return seen.every(Boolean);
      });
      const third = await Promise.all(fleet.map((s) => post(s.url, `/admin/mv/${MV}/refresh`)));
      expect(third.map((o) => o.outcome).sort()).toEqual(['refreshed', 'skipped', 'skipped']);

      // the log: exactly one refresh per (definition, input) version
      const log = (await get(fleet[2]!.url, `/admin/mv/${MV}/log`)).entries as Json[];
      const refreshes = log.filter((e) => e.outcome === 'refreshed');
      expect(refreshes).toHaveLength(2);
      expect(new Set(refreshes.map((e) => `${String(e.definitionVersion)}|${String(e.inputVersion)}`)).size).toBe(2);
      expect(refreshes[0]!.inputVersion).toBe(refreshes[1]!.inputVersion);
      expect(log.filter((e) => e.outcome === 'skipped')).toHaveLength(7);
      for (const s of fleet) await s.kill('SIGTERM');
    });

    it('a writer SIGKILLed mid-refresh: another instance completes it after the lease expires; readers only ever see one whole version', async () => {
      const reader = await start({ SHOAL_MV_LEASE_MS: '2000' });
      // a published first version (already there when the first test ran)
      expect(['refreshed', 'skipped']).toContain((await post(reader.url, `/admin/mv/${MV}/refresh`)).outcome);
      const before = await read(reader.url);
      expect(before.mv).toMatch(/=snapshot:/);
      expect(before.status).toBe(200);
      expect(before.rows).toEqual(expected(1));
      const v1 = before.mv;

      const doomed = await start({ SHOAL_MV_LEASE_MS: '2000', SHOAL_MV_FAULT_COMMIT_DELAY_MS: '60000' });
      const doomedWriter = await writerOf(doomed);
      writeFileSync(join(dir, 'orders.csv'), orders(2));

      const reads: { status: number; mv: string | null; rows: unknown[][] }[] = [];
      let reading = true;
      const readers = (async () => {
        while (reading) reads.push(await read(reader.url));
      })();

      void post(doomed.url, `/admin/mv/${MV}/refresh`).catch(() => undefined);
      await until('the doomed writer to hold the lease', async () => (await get(reader.url, `/admin/mv/${MV}`)).writer === doomedWriter);
      await sleep(500);
      await doomed.kill('SIGKILL');

      // an instance whose own refresh loop picks the MV up once the dead writer's lease expires
      const rescuer = await start({ SHOAL_MV_LEASE_MS: '2000', SHOAL_MV_TICK_MS: '300' });
      const rescuerWriter = await writerOf(rescuer);
      const done = await until('the rescuer to publish', async () => {
        const row = await get(reader.url, `/admin/mv/${MV}`);
        return row.status === 'fresh' && row.writer === null && typeof row.snapshotId === 'string' && !v1?.endsWith(row.snapshotId) ? row : undefined;
      });
      await sleep(1500); // readers keep reading across the switch (resolution cache ≤ 1 s)
      reading = false;
      await readers;

      const log = (await get(reader.url, `/admin/mv/${MV}/log`)).entries as Json[];
      const reclaimed = log.find((e) => e.outcome === 'reclaimed' && e.writer === rescuerWriter);
      expect(reclaimed?.reason).toContain(doomedWriter);
      expect(log.find((e) => e.outcome === 'refreshed' && e.snapshotId === done.snapshotId)?.writer).toBe(rescuerWriter);

      expect(reads.length).toBeGreaterThan(10);
      const v2 = `${MV}=snapshot:${String(done.snapshotId)}`;
      for (const r of reads) {
        expect(r.status).toBe(200);
        // one whole version, and the one the header names
        expect([[v1, expected(1)], [v2, expected(2)]]).toContainEqual([r.mv, r.rows]);
      }
      expect(reads.at(-1)).toEqual({ status: 200, mv: v2, rows: expected(2) });
      await rescuer.kill('SIGTERM');
      await reader.kill('SIGTERM');
    });

    it('a writer paused past its lease (SIGSTOP, SIGCONT) cannot publish: lost_lease, and its snapshot never becomes visible', async () => {
      const peer = await start({ SHOAL_MV_LEASE_MS: '2000' });
      // a wide window between writing and committing, so the pause always lands before the commit
      const paused = await start({ SHOAL_MV_LEASE_MS: '2000', SHOAL_MV_FAULT_COMMIT_DELAY_MS: '8000' });
      const pausedWriter = await writerOf(paused);
      writeFileSync(join(dir, 'orders.csv'), orders(3));

      const pending = post(paused.url, `/admin/mv/${MV}/refresh`).catch((e: unknown) => ({ error: String(e) }) as Json);
      await until('the paused writer to hold the lease', async () => (await get(peer.url, `/admin/mv/${MV}`)).writer === pausedWriter);
      paused.child.kill('SIGSTOP');
      // the peer is refused while the lease is live, and wins once it has expired
      const won = await until('the peer to win the expired lease', async () => {
        const r = await post(peer.url, `/admin/mv/${MV}/refresh`);
        return r.outcome === 'refreshed' ? r : (expect(r).toMatchObject({ outcome: 'skipped', reason: 'held' }), undefined);
      });
      paused.child.kill('SIGCONT');
      const late = await pending;
      expect(late.outcome).toBe('lost_lease');

      const row = await get(peer.url, `/admin/mv/${MV}`);
      expect(row.snapshotId).toBe(won.snapshotId);
      const log = (await get(peer.url, `/admin/mv/${MV}/log`)).entries as Json[];
      const lost = log.find((e) => e.outcome === 'lost_lease' && e.writer === pausedWriter);
      expect(lost).toBeDefined();
      expect(log.some((e) => e.outcome === 'refreshed' && e.writer === pausedWriter)).toBe(false);
      // the refused snapshot was discarded from the store
      if (typeof lost?.snapshotId === 'string') expect(existsSync(join(dir, 'shoal-mv', `${lost.snapshotId}.parquet`))).toBe(false);
      // the store holds the published snapshots and at most the SIGKILLed writer's orphan (GC'd after its grace)
      const published = log.filter((e) => e.outcome === 'refreshed').map((e) => String(e.snapshotId));
      const files = readdirSync(join(dir, 'shoal-mv', 'sales.by_region')).filter((f) => !f.startsWith('.'));
      expect(files.filter((f) => !published.includes(`sales.by_region/${f.replace(/\.parquet$/, '')}`)).length).toBeLessThanOrEqual(1);
      expect(await read(peer.url)).toEqual({ status: 200, mv: `${MV}=snapshot:${String(won.snapshotId)}`, rows: expected(3) });
    });
  });
}
