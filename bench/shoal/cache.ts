/**
 * The result cache, measured side by side in one run (ratios, never timed assertions):
 * - a cache HIT through the instance (a repeat request: key → lookup → decode, no planning) against
 *   the same SQL on a raw in-memory DuckDB over the same Parquet file;
 * - a cache HIT against the full gateway MISS (an identical instance with `cache.enabled: false`),
 *   for a small aggregate and for a 1,000-row answer: what the cache saves;
 * - the same HIT through a shared Redis (when redis-server is installed: a throwaway server).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/shoal/check/load-config.js';
import { factsParquet } from './facts-parquet.js';
import { ShoalInstance } from '../../src/shoal/instance/instance.js';
import { OwnRedis } from '../../test/integration/shoal/cache/own-redis.js';
import { median, type BenchResult } from '../tik/measure.js';

async function drain(instance: ShoalInstance, sql: string, role = 'admin', vars: Record<string, string> = {}): Promise<number> {
  const r = await instance.query({ sql, role, vars }, new AbortController().signal);
  let n = 0;
  for await (const b of r.batches) n += b.length;
  return n;
}

const config = (cache: string) => `control_plane: {tenant_url: "sqlite:///registry.db"}
cache: ${cache}
domains: [{id: bench}]
sources: [{id: files, type: parquet, path: facts.parquet}]
tables:
  - source_id: files
    domain_id: bench
    table: facts
    columns:
      - {name: id, data_type: bigint}
      - {name: region, data_type: varchar}
      - {name: amount, data_type: double}
      - {name: email, data_type: varchar, unmasked_to: [admin], mask_type: regex, mask_pattern: "^(.{2}).*(@.*)$", mask_replace: "$1***$2"}
roles:
  - {id: admin, capabilities: [admin, full_results], domain_access: ["*"]}
  - {id: analyst, capabilities: [full_results], domain_access: [bench]}
rls_rules:
  - {table_id: facts, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}
`;

export async function benchResultCache(rows: number, runs: number): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-bench-cache-'));
  const results: BenchResult[] = [];
  const open: ShoalInstance[] = [];
  let redis: OwnRedis | undefined;
  try {
    const { rc } = await factsParquet(dir, rows);
    const start = async (file: string, cache: string): Promise<ShoalInstance> => {
      writeFileSync(join(dir, file), config(cache));
      const i = await ShoalInstance.start({ config: loadConfig({ path: join(dir, file) }).config, baseDir: dir, mv: { tickMs: 0 }, hot: false });
      open.push(i);
      return i;
    };
    const cached = await start('cached.yaml', '{enabled: true, default_ttl: 3600}');
    const live = await start('live.yaml', '{enabled: false}');
    const reps = 20; // queries per timed run: a hit is well under a millisecond
    const agg = 'SELECT region, count(*) AS n, sum(amount) AS total FROM facts GROUP BY region ORDER BY region';
    const page = 'SELECT id, region, amount, email FROM facts WHERE id < 1000 ORDER BY id';
    const gw = (sql: string) => sql.replace('FROM facts', 'FROM bench.facts');
    const faster = (ms: number, floorMs: number) => (ms < floorMs ? ` — ${(floorMs / ms).toFixed(floorMs / ms < 10 ? 1 : 0)}× faster` : '');
    const times = (f: () => Promise<unknown>) => async () => {
      for (let i = 0; i < reps; i++) await f();
    };

    for (const [label, sql] of [['aggregate', agg], ['1,000-row page', page]] as const) {
      const floor = await median(runs, times(() => rc.runAndReadAll(sql)));
      const hit = await median(runs, times(() => drain(cached, gw(sql))));
      const miss = await median(runs, times(() => drain(live, gw(sql))));
      results.push({ name: `result cache: hit, ${label}`, floorMs: floor, ms: hit, note: `in-process hit vs raw DuckDB on the same Parquet (${rows} rows; ${reps} queries per run)${faster(hit, floor)}` });
      results.push({ name: `result cache: hit vs miss, ${label}`, floorMs: miss, ms: hit, note: `in-process hit vs the full gateway (cache disabled)${faster(hit, miss)}` });
    }
    const rls = await median(runs, times(() => drain(cached, gw(agg), 'analyst', { 'provisa.user_region': 'eu' })));
    const rlsMiss = await median(runs, times(() => drain(live, gw(agg), 'analyst', { 'provisa.user_region': 'eu' })));
    results.push({ name: 'result cache: hit vs miss, RLS role', floorMs: rlsMiss, ms: rls, note: `aggregate as a role with a row filter${faster(rls, rlsMiss)}` });

    redis = await OwnRedis.start().catch(() => undefined); // no redis-server here: skip the Redis rows
    if (redis) {
      const shared = await start('redis.yaml', `{enabled: true, default_ttl: 3600, redis_url: "${redis.url}"}`);
      for (const [label, sql] of [['aggregate', agg], ['1,000-row page', page]] as const) {
        const mem = await median(runs, times(() => drain(cached, gw(sql))));
        const red = await median(runs, times(() => drain(shared, gw(sql))));
        const miss = await median(runs, times(() => drain(live, gw(sql))));
        results.push({ name: `result cache: Redis hit vs in-process, ${label}`, floorMs: mem, ms: red, note: 'a loopback Redis round trip per hit' });
        results.push({ name: `result cache: Redis hit vs miss, ${label}`, floorMs: miss, ms: red, note: `shared Redis hit vs the full gateway${faster(red, miss)}` });
      }
    }
    rc.closeSync();
  } finally {
    for (const i of open) await i.close();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
