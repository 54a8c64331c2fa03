/**
 * The result cache in real `shoal serve` processes sharing a private Redis and one registry: the
 * headers on the wire, a hit on one process for an answer another computed, /metrics per tier, and
 * Redis SIGKILLed under both processes — they keep answering, byte for byte, counting fallbacks.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../../../support/processes.js';
import { freePort } from '../../../support/services.js';
import { service } from '../../../support/service.js';
import { OwnRedis } from './own-redis.js';

const redisService = service('redis'); // decides only whether redis-server exists here; this file runs its own

const metric = (text: string, name: string, tier = 'result'): number => Number(text.split('\n').find((l) => l.startsWith(`${name}{tier="${tier}"} `))?.split(' ')[1]);

describe.skipIf(redisService.skip)('the result cache across shoal serve processes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-result-serve-'));
  let redis: OwnRedis;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    redis = await OwnRedis.start();
    writeFileSync(join(dir, 'orders.csv'), 'id,region,amount\n1,eu,10.50\n2,us,20.00\n3,eu,30.25\n');
    writeFileSync(join(dir, 'shoal.yaml'), `control_plane: {tenant_url: "sqlite:///registry.db"}
cache: {enabled: true, default_ttl: 300, redis_url: "${redis.url}"}
auth: {provider: none}
domains: [{id: sales}]
sources: [{id: orders-csv, type: csv, path: orders.csv}]
tables:
  - source_id: orders-csv
    domain_id: sales
    table: orders
    hot: false
    columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}, {name: amount, data_type: "decimal(20,2)"}]
roles:
  - {id: admin, capabilities: [admin, full_results], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development, full_results], domain_access: [sales]}
rls_rules:
  - {table_id: orders, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}
`);
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      servers.push(await startServer(['serve', '--config', join(dir, 'shoal.yaml'), '--port', String(port)], { cwd: dir, port, env: { SHOAL_MV_TICK_MS: '0' } }));
    }
  }, 120_000);

  afterAll(async () => {
    for (const s of servers) await s.kill('SIGKILL');
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const ask = async (url: string, sql: string, role: string, vars: Record<string, string> = {}) => {
    const r = await fetch(`${url}/data/sql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-provisa-role': role }, body: JSON.stringify({ sql, vars }) });
    return { status: r.status, body: await r.text(), cache: r.headers.get('x-provisa-cache'), age: r.headers.get('x-provisa-cache-age') };
  };
  const metrics = async (url: string) => (await fetch(`${url}/metrics`)).text();

  it('/metrics exports every cache series at 0 before the first query', async () => {
    const text = await metrics(servers[0]!.url);
    for (const tier of ['result', 'hot']) {
      for (const name of ['shoal_cache_hits_total', 'shoal_cache_misses_total', 'shoal_cache_fallbacks_total', 'shoal_cache_bytes']) expect(metric(text, name, tier)).toBe(0);
    }
  });

  it('an answer computed by one process is a HIT on the other, with the same body and an age header', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const sql = 'SELECT id, region, amount FROM sales.orders ORDER BY id';
    const miss = await ask(a.url, sql, 'analyst', { 'provisa.user_region': 'eu' });
    expect(miss).toMatchObject({ status: 200, cache: 'MISS', age: null });
    expect(JSON.parse(miss.body).rows).toEqual([[1, 'eu', '10.50'], [3, 'eu', '30.25']]);
    const hit = await ask(b.url, sql, 'analyst', { 'provisa.user_region': 'eu' });
    expect(hit).toMatchObject({ status: 200, cache: 'HIT', body: miss.body });
    expect(Number(hit.age)).toBeGreaterThanOrEqual(0);
    // another region is another entry, never the eu rows
    const us = await ask(b.url, sql, 'analyst', { 'provisa.user_region': 'us' });
    expect(us.cache).toBe('MISS');
    expect(JSON.parse(us.body).rows).toEqual([[2, 'us', '20.00']]);
    expect(metric(await metrics(b.url), 'shoal_cache_hits_total')).toBe(1);
    expect(metric(await metrics(a.url), 'shoal_cache_bytes')).toBeGreaterThan(0);
  });

  it('with Redis SIGKILLed, both processes keep answering the same bodies and count fallbacks', async () => {
    const sql = 'SELECT region, sum(amount) AS total FROM sales.orders GROUP BY region ORDER BY region';
    const before = await ask(servers[0]!.url, sql, 'admin');
    await redis.kill();
    for (const s of servers) {
      for (let i = 0; i < 3; i++) expect(await ask(s.url, sql, 'admin')).toMatchObject({ status: 200, cache: 'MISS', body: before.body });
      expect(metric(await metrics(s.url), 'shoal_cache_fallbacks_total')).toBeGreaterThanOrEqual(3);
      expect(s.child.exitCode).toBeNull();
    }
  });
});
