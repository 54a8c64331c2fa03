/**
 * Two deployments (two registries) with the same table names and different data share one REAL
 * Redis: each sees only its own answers, from the result cache and from the hot cache. Before
 * cache keys carried the deployment id, the second deployment was served the first one's entries
 * (the same epoch, SQL and role give the same result key; the same table name the same hot key).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/shoal/check/load-config.js';
import { ShoalInstance, type InstanceOptions } from '../../../../src/shoal/instance/instance.js';
import { service } from '../../../support/service.js';
import { OwnRedis } from './own-redis.js';

const redisService = service('redis'); // decides only whether redis-server exists here; this file runs its own

const config = (redisUrl: string, ratesPath: string, cache: string) => `control_plane: {tenant_url: "sqlite:///registry.db"}
cache: {${cache}redis_url: "${redisUrl}", default_ttl: 300}
domains: [{id: sales}]
sources: [{id: rates-csv, type: csv, path: "${ratesPath}"}]
tables:
  - source_id: rates-csv
    domain_id: sales
    table: rates
    hot: true
    columns: [{name: region, data_type: varchar}, {name: rate, data_type: integer}]
roles:
  - {id: admin, capabilities: [admin, full_results], domain_access: ["*"]}
`;

const SQL = 'SELECT region, rate FROM sales.rates ORDER BY region';

/**
 * Poll until `i` answers `rows` from its hot copy (a copy is served only while its change signal
 * was checked within revalidate_interval: on a loaded machine a first answer may run live).
 */
async function servedHot(i: ShoalInstance, rows: unknown[][]): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await answer(i);
    if (r.headers['x-shoal-hot'] === 'sales.rates' && JSON.stringify(r.rows) === JSON.stringify(rows)) return;
    if (Date.now() > deadline) throw new Error(`never served ${JSON.stringify(rows)} from a hot copy (last: ${JSON.stringify(r)})`);
    await i.hot!.settled();
    await new Promise((res) => setTimeout(res, 50));
  }
}

async function answer(i: ShoalInstance): Promise<{ rows: unknown[][]; headers: Readonly<Record<string, string>> }> {
  const r = await i.query({ sql: SQL, role: 'admin', vars: {} }, new AbortController().signal);
  const rows: unknown[][] = [];
  for await (const b of r.batches) rows.push(...b.map((row) => [...row]));
  return { rows, headers: r.headers ?? {} };
}

describe.skipIf(redisService.skip)('two deployments sharing one Redis', () => {
  const root = mkdtempSync(join(tmpdir(), 'shoal-deployments-'));
  let redis: OwnRedis;
  const instances: ShoalInstance[] = [];
  const start = async (dir: string, text: string, opts: Partial<InstanceOptions> = {}) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'shoal.yaml'), text);
    const i = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'shoal.yaml') }).config, baseDir: dir, pollMs: 60_000, mv: { tickMs: 0 }, ...opts });
    instances.push(i);
    return i;
  };

  beforeAll(async () => {
    redis = await OwnRedis.start();
  }, 60_000);
  afterAll(async () => {
    for (const i of instances) await i.close().catch(() => undefined);
    await redis?.kill();
    rmSync(root, { recursive: true, force: true });
  });

  it('have distinct deployment ids, stable across a restart of the same registry', async () => {
    const dir = join(root, 'ids');
    const text = config(redis.url, 'rates.csv', 'enabled: false, ');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'rates.csv'), 'region,rate\neu,1\n');
    const a = await start(dir, text, { hot: false });
    const id = a.registry.deploymentId;
    await a.close();
    const again = await start(dir, text, { hot: false });
    expect(again.registry.deploymentId).toBe(id);
    const other = await start(join(root, 'ids-other'), text, { hot: false });
    expect(other.registry.deploymentId).not.toBe(id);
  }, 120_000);

  it('result cache: each deployment is answered from its own data, never from the other\'s entry', async () => {
    const [dirA, dirB] = [join(root, 'result-a'), join(root, 'result-b')];
    for (const [d, rate] of [[dirA, 1], [dirB, 2]] as const) {
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, 'rates.csv'), `region,rate\neu,${rate}\nus,${rate * 10}\n`);
    }
    // the same config text in both: the same table names, relative paths to different files
    const a = await start(dirA, config(redis.url, 'rates.csv', ''), { hot: false, resultCache: { redisTimeoutMs: 10_000 } });
    const b = await start(dirB, config(redis.url, 'rates.csv', ''), { hot: false, resultCache: { redisTimeoutMs: 10_000 } });
    expect(a.epoch).toBe(b.epoch); // epochs of two registries collide: the key must not rest on them
    const first = await answer(a);
    expect(first.rows).toEqual([['eu', 1], ['us', 10]]);
    expect(first.headers['x-provisa-cache']).toBe('MISS');
    expect((await answer(a)).headers['x-provisa-cache']).toBe('HIT');
    const fromB = await answer(b);
    expect(fromB.rows).toEqual([['eu', 2], ['us', 20]]);
    expect(fromB.headers['x-provisa-cache']).toBe('MISS');
    expect(await answer(b)).toMatchObject({ rows: [['eu', 2], ['us', 20]], headers: { 'x-provisa-cache': 'HIT' } });
    expect(await answer(a)).toMatchObject({ rows: [['eu', 1], ['us', 10]], headers: { 'x-provisa-cache': 'HIT' } });
    // invalidating everything in one deployment leaves the other's entries alone
    await b.invalidateCaches();
    expect((await answer(a)).headers['x-provisa-cache']).toBe('HIT');
  }, 180_000);

  it('hot cache: a deployment whose same-named table holds other rows loads its own, not the other\'s blob', async () => {
    // one file path for both (as two deployments reading /data/rates.csv on their own machines):
    // the same source definition, so only the deployment id can tell their entries apart
    const shared = join(root, 'hot-data', 'rates.csv');
    mkdirSync(join(root, 'hot-data'), { recursive: true });
    writeFileSync(shared, 'region,rate\neu,3\nus,30\n');
    const a = await start(join(root, 'hot-a'), config(redis.url, shared, 'enabled: false, '), { resultCache: false });
    await a.hot!.settled();
    expect(a.hot!.status().find((s) => s.table === 'sales.rates')?.state).toBe('cached');
    await servedHot(a, [['eu', 3], ['us', 30]]);
    // deployment B's machine has other rows in its file
    writeFileSync(shared, 'region,rate\neu,4\nus,40\n');
    const b = await start(join(root, 'hot-b'), config(redis.url, shared, 'enabled: false, '), { resultCache: false });
    await b.hot!.settled();
    await servedHot(b, [['eu', 4], ['us', 40]]);
    // B's load neither overwrote nor invalidated A's copy (A's generation is unchanged); A follows
    // its own file through its change signal (the file changed under it), within revalidate_interval.
    // A may be reloading from its own file right now (its status then has no generation): wait for it.
    await a.hot!.settled();
    expect(a.hot!.status().find((s) => s.table === 'sales.rates')?.generation).toBe('0');
    await servedHot(a, [['eu', 4], ['us', 40]]);
    await b.invalidateCaches('sales.rates');
    await a.hot!.settled();
    expect(a.hot!.status().find((s) => s.table === 'sales.rates')?.generation).toBe('0');
  }, 180_000);
});
