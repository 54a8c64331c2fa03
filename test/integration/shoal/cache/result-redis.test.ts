/**
 * The result cache shared through a REAL Redis that this test starts on a free port and kills
 * mid-run: two instances share entries; with Redis gone every answer is still the live answer
 * (no client error) and fallbacks are counted; once Redis is back the cache serves again.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../../src/shoal/instance/instance.js';
import { buildApp } from '../../../../src/shoal/server/app.js';
import { service } from '../../../support/service.js';
import { OwnRedis } from './own-redis.js';

const redisService = service('redis'); // decides only whether redis-server exists here; this file runs its own

const ORDERS = 'id,region,amount\n1,eu,10.50\n2,us,20.00\n3,eu,30.25\n4,us,5.125\n';
const CONFIG = (cache: string) => `control_plane: {tenant_url: "sqlite:///registry.db"}
cache: ${cache}
auth: {provider: none}
# the burst below is one (anonymous) principal: lift the per-principal concurrency limit it is not about
server: {limits: {max_concurrent_queries: 1000}}
domains: [{id: sales}]
sources:
  - {id: orders-csv, type: csv, path: orders.csv}
tables:
  - source_id: orders-csv
    domain_id: sales
    table: orders
    columns:
      - {name: id, data_type: integer}
      - {name: region, data_type: varchar}
      - {name: amount, data_type: "decimal(12,3)", mask_type: constant, mask_value: 0, unmasked_to: [admin]}
roles:
  - {id: admin, capabilities: [admin, full_results], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development, full_results], domain_access: [sales]}
rls_rules:
  - {table_id: orders, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}
`;

const QUERIES = [
  'SELECT id, region, amount FROM sales.orders ORDER BY id',
  'SELECT region, count(*) AS n FROM sales.orders GROUP BY region ORDER BY region',
  'SELECT max(id) AS m FROM sales.orders',
];
const REQUESTS = QUERIES.flatMap((sql) => [
  { sql, role: 'admin', vars: {} },
  { sql, role: 'analyst', vars: { 'provisa.user_region': 'eu' } },
  { sql, role: 'analyst', vars: { 'provisa.user_region': 'us' } },
]);

const metric = (text: string, name: string): number => Number(text.split('\n').find((l) => l.startsWith(`${name}{tier="result"} `))?.split(' ')[1]);

describe.skipIf(redisService.skip)('the result cache on a shared Redis that goes away', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-result-redis-'));
  let redis: OwnRedis;
  let killed = false;
  const instances: ShoalInstance[] = [];
  const apps: FastifyInstance[] = [];
  let a: FastifyInstance;
  let b: FastifyInstance;
  let oracle: FastifyInstance;

  beforeAll(async () => {
    redis = await OwnRedis.start();
    writeFileSync(join(dir, 'orders.csv'), ORDERS);
    writeFileSync(join(dir, 'cached.yaml'), CONFIG(`{enabled: true, default_ttl: 300, redis_url: "${redis.url}"}`));
    writeFileSync(join(dir, 'plain.yaml'), CONFIG('{enabled: false}'));
    for (const file of ['cached.yaml', 'cached.yaml', 'plain.yaml']) {
      const instance = await ShoalInstance.start({ config: loadConfig({ path: join(dir, file) }).config, baseDir: dir, mv: { tickMs: 0 }, hot: false, resultCache: { redisTimeoutMs: 10_000 } /* a loaded machine must not turn a slow reply into a fallback */ });
      instances.push(instance);
      apps.push(await buildApp({ service: instance }));
    }
    [a, b, oracle] = apps as [FastifyInstance, FastifyInstance, FastifyInstance];
  }, 120_000);

  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const i of instances) await i.close();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const ask = async (app: FastifyInstance, r: (typeof REQUESTS)[number]) => {
    const res = await app.inject({ method: 'POST', url: '/data/sql', payload: r });
    return { status: res.statusCode, body: res.body, cache: res.headers['x-provisa-cache'] };
  };

  it('instances share entries: what one stored, the other serves, byte for byte', async () => {
    for (const r of REQUESTS) {
      const live = await ask(oracle, r);
      expect(await ask(a, r)).toEqual({ ...live, cache: 'MISS' });
      expect(await ask(b, r)).toEqual({ ...live, cache: 'HIT' });
      expect(await ask(a, r)).toEqual({ ...live, cache: 'HIT' });
    }
    expect(instances[0]!.results!.store.tier).toBe('redis');
    expect(metric(instances[0]!.metrics.render(), 'shoal_cache_bytes')).toBeGreaterThan(0);
  });

  it('an invalidation on one instance is seen by the other at once', async () => {
    const r = REQUESTS[0]!;
    expect((await ask(b, r)).cache).toBe('HIT');
    await instances[0]!.results!.invalidate('sales.orders');
    expect((await ask(b, r)).cache).toBe('MISS');
    expect((await ask(a, r)).cache).toBe('HIT');
  });

  it('Redis killed mid-run: every answer is still the live answer, no client error, fallbacks counted', async () => {
    const before = instances.slice(0, 2).map((i) => metric(i.metrics.render(), 'shoal_cache_fallbacks_total'));
    const expected = await Promise.all(REQUESTS.map((r) => ask(oracle, r)));
    // a burst of queries on both instances with Redis SIGKILLed in the middle of it
    const burst = Array.from({ length: 4 }, () => REQUESTS.flatMap((r, i) => [{ app: a, r, i }, { app: b, r, i }])).flat();
    const answers = await Promise.all(
      burst.map(async ({ app, r, i }, n) => {
        if (n === Math.floor(burst.length / 3)) {
          await redis.kill();
          killed = true;
        }
        return { got: await ask(app, r), i };
      }),
    );
    expect(killed).toBe(true);
    for (const { got, i } of answers) {
      expect({ status: got.status, body: got.body }).toEqual({ status: expected[i]!.status, body: expected[i]!.body });
      expect(['HIT', 'MISS']).toContain(got.cache);
    }
    // and after the burst, with Redis surely gone: live answers, each counted as a fallback
    for (const r of REQUESTS) {
      const live = await ask(oracle, r);
      expect(await ask(a, r)).toEqual({ ...live, cache: 'MISS' });
      expect(await ask(b, r)).toEqual({ ...live, cache: 'MISS' });
    }
    const after = instances.slice(0, 2).map((i) => metric(i.metrics.render(), 'shoal_cache_fallbacks_total'));
    expect(after[0]! - before[0]!).toBeGreaterThanOrEqual(REQUESTS.length);
    expect(after[1]! - before[1]!).toBeGreaterThanOrEqual(REQUESTS.length);
  }, 60_000);

  it('once Redis is back, the cache serves again (the client reconnects by itself)', async () => {
    await redis.stop();
    redis = await OwnRedis.start(redis.port);
    const r = REQUESTS[1]!;
    const live = await ask(oracle, r);
    // reconnection is asynchronous: poll until an entry is stored and served (bounded, not timed)
    let hit = false;
    for (let i = 0; i < 200 && !hit; i++) {
      const got = await ask(a, r);
      expect({ status: got.status, body: got.body }).toEqual({ status: live.status, body: live.body });
      hit = got.cache === 'HIT';
      if (!hit) await new Promise((res) => setTimeout(res, 50));
    }
    expect(hit).toBe(true);
    expect(await ask(b, r)).toEqual({ ...live, cache: 'HIT' });
  }, 60_000);
});
