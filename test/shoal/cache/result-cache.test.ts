/**
 * The result cache end to end, through the HTTP API of real instances (registry, DuckDB, a SQLite
 * source on the direct route, CSV sources on the engine route, an MV): one instance caching in
 * process on an injected clock, one with `cache.enabled: false` over the same data as the oracle.
 * Hot tables are off here so the result tier is observed alone.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultStore } from '../../../src/shoal/cache/result-store.js';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { buildApp } from '../../../src/shoal/server/app.js';

const ORDERS = 'id,customer_id,region,amount,placed,big\n1,1,eu,10.50,2024-01-05,9007199254740993\n2,2,us,20.00,2024-02-29,-3\n3,3,eu,30.25,2024-03-01,\n4,1,us,5.125,2024-12-31,42\n';

const config = (cache: string, registry: string) => `control_plane: {tenant_url: "sqlite:///${registry}"}
cache: ${cache}
auth: {provider: none}
domains: [{id: sales}, {id: crm}]
sources:
  - {id: orders-csv, type: csv, path: orders.csv}
  - {id: shop, type: sqlite, path: shop.db, cache_ttl: 20}
tables:
  - source_id: orders-csv
    domain_id: sales
    table: orders
    columns:
      - {name: id, data_type: integer}
      - {name: customer_id, data_type: integer}
      - {name: region, data_type: varchar}
      - {name: amount, data_type: "decimal(12,3)"}
      - {name: placed, data_type: date}
      - {name: big, data_type: bigint, visible_to: [admin, clerk]}
  - source_id: shop
    domain_id: crm
    table: customers
    columns:
      - {name: id, data_type: integer}
      - {name: name, data_type: varchar}
      - {name: email, data_type: varchar, mask_type: regex, mask_pattern: "^[^@]+(@.*)$", mask_replace: "***$1", unmasked_to: [admin]}
      - {name: region, data_type: varchar}
      - {name: ssn, data_type: varchar, visible_to: [admin]}
  - source_id: __derived__
    domain_id: sales
    table: by_region
    materialize: true
    definer_rows: true # every region's count, whoever reads it (orders has RLS)
    view_sql: 'SELECT region, count(*) AS n FROM "orders_csv"."default"."orders" GROUP BY region'
    columns: [{name: region, data_type: varchar}, {name: n, data_type: bigint}]
roles:
  - {id: admin, capabilities: [admin, full_results], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development, full_results], domain_access: [sales, crm]}
  - {id: clerk, capabilities: [query_development, full_results], domain_access: [sales, crm]}
rls_rules:
  - {table_id: orders, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}
  - {table_id: customers, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}
  - {table_id: orders, role_id: clerk, filter: "amount < 25"}
`;

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly cache: string | undefined;
  readonly age: string | undefined;
  readonly headers: Record<string, unknown>;
}

async function ask(app: FastifyInstance, sql: string, role: string, vars: Record<string, string> = {}, accept?: string): Promise<Answer> {
  const r = await app.inject({ method: 'POST', url: '/data/sql', payload: { sql, role, vars }, ...(accept ? { headers: { accept } } : {}) });
  return { status: r.statusCode, body: r.body, cache: r.headers['x-provisa-cache'] as string | undefined, age: r.headers['x-provisa-cache-age'] as string | undefined, headers: r.headers };
}

const metric = (text: string, name: string, tier = 'result'): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{tier="${tier}"} `));
  return line === undefined ? Number.NaN : Number(line.split(' ')[1]);
};

describe('the result cache through a real instance', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-result-cache-'));
  let now = Date.UTC(2026, 0, 1);
  let cached: ShoalInstance;
  let plain: ShoalInstance;
  let app: FastifyInstance;
  let oracle: FastifyInstance;

  beforeAll(async () => {
    const db = new Database(join(dir, 'shop.db'));
    db.exec(`CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, email TEXT, region TEXT, ssn TEXT);
      INSERT INTO customers VALUES (1, 'Ann', 'ann@example.com', 'eu', '111'), (2, 'Bob', 'bob@example.com', 'us', '222'), (3, 'Cé', 'ce@example.com', 'eu', NULL);`);
    db.close();
    writeFileSync(join(dir, 'orders.csv'), ORDERS);
    writeFileSync(join(dir, 'cached.yaml'), config('{enabled: true, default_ttl: 60}', 'reg-cached.db'));
    writeFileSync(join(dir, 'plain.yaml'), config('{enabled: false}', 'reg-plain.db'));
    const start = (file: string) => ShoalInstance.start({ config: loadConfig({ path: join(dir, file) }).config, baseDir: dir, mv: { tickMs: 0 }, hot: false, resultCache: { clock: () => now } });
    cached = await start('cached.yaml');
    plain = await start('plain.yaml');
    app = await buildApp({ service: cached });
    oracle = await buildApp({ service: plain });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await oracle?.close();
    await cached?.close();
    await plain?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a HIT returns exactly the body of the MISS, in every format, with its age', async () => {
    const sql = 'SELECT id, region, amount, placed, big FROM sales.orders ORDER BY id';
    const miss = await ask(app, sql, 'admin');
    expect(miss).toMatchObject({ status: 200, cache: 'MISS', age: undefined });
    expect(JSON.parse(miss.body).rows[0]).toEqual([1, 'eu', '10.500', '2024-01-05', '9007199254740993']);
    const hit = await ask(app, sql, 'admin');
    expect(hit).toMatchObject({ status: 200, cache: 'HIT', age: '0', body: miss.body });
    expect(hit.headers['x-shoal-route']).toBe(miss.headers['x-shoal-route']);
    for (const accept of ['application/x-ndjson', 'text/csv']) {
      const h = await ask(app, sql, 'admin', {}, accept);
      expect(h.cache).toBe('HIT');
      expect(h.body).toBe((await ask(oracle, sql, 'admin', {}, accept)).body);
    }
    // the direct route too
    const direct = 'SELECT id, name, email, ssn FROM crm.customers ORDER BY id';
    const dm = await ask(app, direct, 'admin');
    expect(dm.headers['x-shoal-route']).toBe('direct:shop');
    expect(await ask(app, direct, 'admin')).toMatchObject({ cache: 'HIT', body: dm.body });
  });

  it('with the cache disabled there are no cache headers at all', async () => {
    const r = await ask(oracle, 'SELECT id FROM sales.orders ORDER BY id', 'admin');
    expect(r.status).toBe(200);
    expect(r.cache).toBeUndefined();
    expect(r.age).toBeUndefined();
    expect(plain.results).toBeUndefined();
  });

  it('law: whatever the sequence of roles, session variables and queries, the cached answer is the uncached answer', async () => {
    const queries = [
      'SELECT id, region, amount FROM sales.orders ORDER BY id',
      'SELECT * FROM sales.orders ORDER BY id',
      'SELECT region, count(*) AS n, sum(amount) AS total FROM sales.orders GROUP BY region ORDER BY region',
      'SELECT id, name, email FROM crm.customers ORDER BY id',
      'SELECT o.id, c.name, c.email FROM sales.orders o JOIN crm.customers c ON c.id = o.customer_id ORDER BY o.id',
      "SELECT id FROM sales.orders WHERE region = current_setting('provisa.user_region', true) ORDER BY id",
      'SELECT region, n FROM sales.by_region ORDER BY region',
    ];
    const request = fc.record({
      sql: fc.constantFrom(...queries),
      role: fc.constantFrom('admin', 'analyst', 'clerk'),
      region: fc.constantFrom('eu', 'us', 'apac', undefined),
    });
    const hitsBefore = metric(cached.metrics.render(), 'shoal_cache_hits_total');
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 6 }), async (reqs) => {
        for (const q of reqs) {
          const vars: Record<string, string> = q.region === undefined ? {} : { 'provisa.user_region': q.region };
          const [a, b] = [await ask(app, q.sql, q.role, vars), await ask(oracle, q.sql, q.role, vars)];
          expect({ status: a.status, body: a.body }).toEqual({ status: b.status, body: b.body });
          if (a.status === 200) expect(['HIT', 'MISS']).toContain(a.cache);
        }
      }),
      { numRuns: 30 },
    );
    // the law was exercised on hits, not only on misses
    expect(metric(cached.metrics.render(), 'shoal_cache_hits_total')).toBeGreaterThan(hitsBefore);
  }, 120_000);

  it('fails closed: a query reading the clock is a MISS every time, and counted as one', async () => {
    const sql = "SELECT id FROM sales.orders WHERE placed < current_date ORDER BY id";
    const before = cached.metrics.render();
    for (let i = 0; i < 3; i++) {
      const r = await ask(app, sql, 'admin');
      expect(r).toMatchObject({ status: 200, cache: 'MISS' });
      expect(r.headers['x-shoal-cache-reason']).toMatch(/^uncacheable: current_date/);
    }
    const after = cached.metrics.render();
    expect(metric(after, 'shoal_cache_misses_total') - metric(before, 'shoal_cache_misses_total')).toBe(3);
    expect(metric(after, 'shoal_cache_hits_total')).toBe(metric(before, 'shoal_cache_hits_total'));
  });

  it('an entry expires with its TTL (the least over the tables read) on the injected clock', async () => {
    const sql = 'SELECT o.id, c.name FROM sales.orders o JOIN crm.customers c ON c.id = o.customer_id WHERE o.id < 3 ORDER BY o.id';
    expect((await ask(app, sql, 'admin')).cache).toBe('MISS');
    now += 19_500;
    expect(await ask(app, sql, 'admin')).toMatchObject({ cache: 'HIT', age: '19' });
    now += 500; // 20 s: the SQLite source's cache_ttl, less than the default 60
    expect((await ask(app, sql, 'admin')).cache).toBe('MISS');
    expect((await ask(app, sql, 'admin')).cache).toBe('HIT');
  });

  it('serves what it stored until the TTL or an invalidation; then the live data', async () => {
    const sql = 'SELECT count(*) AS n FROM sales.orders';
    const first = await ask(app, sql, 'admin');
    writeFileSync(join(dir, 'orders.csv'), `${ORDERS}5,2,eu,1.000,2025-01-01,7\n`);
    // staleness within the TTL is the promise a TTL makes
    expect(await ask(app, sql, 'admin')).toMatchObject({ cache: 'HIT', body: first.body });
    await cached.results!.invalidate('sales.orders');
    const fresh = await ask(app, sql, 'admin');
    expect(fresh.cache).toBe('MISS');
    expect(JSON.parse(fresh.body).rows).toEqual([[5]]);
    writeFileSync(join(dir, 'orders.csv'), ORDERS);
    now += 61_000;
    expect(await ask(app, sql, 'admin')).toMatchObject({ cache: 'MISS', body: first.body });
    // invalidating one table leaves entries of other tables
    const other = 'SELECT id FROM crm.customers ORDER BY id';
    await ask(app, other, 'admin');
    await cached.results!.invalidate('sales.orders');
    expect((await ask(app, other, 'admin')).cache).toBe('HIT');
    await cached.results!.invalidate();
    expect((await ask(app, other, 'admin')).cache).toBe('MISS');
  });

  it('an MV read is keyed on its snapshot: a new snapshot is never answered from the old one', async () => {
    const sql = 'SELECT region, n FROM sales.by_region ORDER BY region';
    await ask(app, sql, 'admin');
    const before = await ask(app, sql, 'admin');
    expect(before.cache).toBe('HIT');
    writeFileSync(join(dir, 'orders.csv'), `${ORDERS}5,2,apac,1.000,2025-01-01,7\n`);
    expect((await cached.mvs!.refresh('sales.by_region', { force: true })).outcome).toBe('refreshed');
    const after = await ask(app, sql, 'admin');
    expect(after.cache).toBe('MISS');
    expect(after.headers['x-shoal-mv']).toMatch(/snapshot:/);
    expect(JSON.parse(after.body).rows).toEqual([['apac', 1], ['eu', 2], ['us', 2]]);
    writeFileSync(join(dir, 'orders.csv'), ORDERS);
  });

  it('/metrics reports hits, misses, fallbacks and bytes for the result and hot tiers', async () => {
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    for (const tier of ['result', 'hot']) {
      for (const name of ['shoal_cache_hits_total', 'shoal_cache_misses_total', 'shoal_cache_fallbacks_total', 'shoal_cache_bytes']) {
        expect(Number.isFinite(metric(text, name, tier)), `${name}{tier="${tier}"}`).toBe(true);
      }
    }
    expect(metric(text, 'shoal_cache_hits_total')).toBeGreaterThan(0);
    expect(metric(text, 'shoal_cache_misses_total')).toBeGreaterThan(0);
    expect(metric(text, 'shoal_cache_bytes')).toBe(cached.results!.store.bytes());
    expect(metric(text, 'shoal_cache_bytes')).toBeGreaterThan(0);
  });
});

describe('a result store that fails', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-result-cache-down-'));
  let instance: ShoalInstance;
  let app: FastifyInstance;
  const broken: ResultStore = {
    tier: 'redis',
    get: async () => {
      throw new Error('connection refused');
    },
    set: async () => {
      throw new Error('connection refused');
    },
    invalidate: async () => {
      throw new Error('connection refused');
    },
    bytes: () => 0,
    close: async () => undefined,
  };

  beforeAll(async () => {
    writeFileSync(join(dir, 'orders.csv'), ORDERS);
    writeFileSync(join(dir, 'shop.db'), '');
    writeFileSync(join(dir, 'shoal.yaml'), config('{enabled: true}', 'reg.db'));
    instance = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'shoal.yaml') }).config, baseDir: dir, mv: { tickMs: 0 }, hot: false, resultCache: { store: broken } });
    app = await buildApp({ service: instance });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await instance?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every query live, never an error, and counts fallbacks', async () => {
    const sql = 'SELECT id, amount FROM sales.orders ORDER BY id';
    for (let i = 0; i < 3; i++) {
      const r = await ask(app, sql, 'admin');
      expect(r).toMatchObject({ status: 200, cache: 'MISS' });
      expect(JSON.parse(r.body).rows).toEqual([[1, '10.500'], [2, '20.000'], [3, '30.250'], [4, '5.125']]);
    }
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metric(text, 'shoal_cache_fallbacks_total')).toBe(3);
    expect(metric(text, 'shoal_cache_hits_total')).toBe(0);
    expect(metric(text, 'shoal_cache_misses_total')).toBe(0);
  });
});
