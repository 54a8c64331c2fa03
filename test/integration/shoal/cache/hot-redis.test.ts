/**
 * Hot tables over a REAL Redis this file starts itself (so it can SIGKILL it) and real PostgreSQL:
 * - law: the hot path, the hot path with Redis killed mid-run, and the cache disabled return the
 *   same multiset for every viewer (RLS, a regex mask, a hidden column) and query (joins of the
 *   hot dimension `customers` with `payments` on another source);
 * - type fidelity: a hot table of every common PostgreSQL type answers exactly as live (types in
 *   `columns`, cells, equality);
 * - bounds: one row over `max_rows` or one byte over `max_bytes` is not cached and Redis sees no write;
 * - two instances sharing Redis: an invalidation on one is honoured by the other (pub/sub).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../../src/shoal/instance/instance.js';
import { hotKeys } from '../../../../src/shoal/cache/hot-backend.js';
import { parseHotAgeHeader } from '../../../../src/shoal/cache/hot-age.js';
import { MetricsRegistry } from '../../../../src/shoal/server/metrics.js';
import { service } from '../../../support/service.js';
import { freePort } from '../../../support/services.js';
import { answer, hotSalesYaml, same } from '../../../shoal/cache/hot-fixture.js';
import { OwnRedis } from './own-redis.js';
import { type Table, salesData, sqlLiteral } from '../../../shoal/sql/duckdb-harness.js';
import { VIEWERS, lawQueryArb, viewerArb } from '../../../shoal/sql/pushdown-law.js';

const postgres = service('postgres');
const redisService = service('redis'); // decides only whether redis-server exists here; this file runs its own
const DB = `shoal_hot_it_${process.pid}`;
const data = salesData();
const PG_TYPES: Record<string, string> = { integer: 'integer', varchar: 'varchar(200)', date: 'date' };
const ddl = (t: Table) => `CREATE TABLE ${t.name} (${t.cols.map(([n, ty]) => `${n} ${PG_TYPES[ty]}`).join(', ')})`;
const insert = (t: Table) => `INSERT INTO ${t.name} VALUES ${t.rows.map((r) => `(${r.map(sqlLiteral).join(', ')})`).join(', ')}`;


async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const KINDS_DDL = `CREATE TABLE kinds (id integer, amount numeric(12,2), big numeric(38,10), n bigint, d double precision, r real, b boolean,
  ts timestamp, tz timestamptz, dt date, tm time, j jsonb, js json, u uuid, iv interval, t text, s smallint)`;
const KINDS_ROWS = [
  `(1, 12.30, 123456789012345678901234567.0123456789, 9223372036854775807, 0.1, 0.1, true, '2024-02-29 23:59:59.999999', '2024-01-01 10:00:00+02', '2024-02-29', '10:11:12.5', '{"a": [1, 2.50, "x"]}', '{"b" : 1}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 year 2 days 00:00:03.5', 'it''s', -3)`,
  `(2, -0.01, 0, -9223372036854775808, 1e308, -2.5, false, '1999-12-31 00:00:00', '1970-01-01 00:00:00+00', '1999-12-31', '00:00:00', 'null', '[]', '00000000-0000-0000-0000-000000000000', '-3 hours', '', 32767)`,
  `(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
  `(4, 99999999.99, -1.5, 42, 'NaN', 3.4e38, true, '2024-06-15 12:00:00.5', '2024-06-15 12:00:00.5-07', '0044-03-15 BC', '23:59:59.999999', '{"nested": {"k": null}}', '"s"', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '1 mon -1 days', 'ünïcødé ✓', 0)`,
];
const KINDS_YAML = `  - source_id: dim
    domain_id: sales
    table: kinds
    hot: true
    columns:
${['id', 'amount', 'big', 'n', 'd', 'r', 'b', 'ts', 'tz', 'dt', 'tm', 'j', 'js', 'u', 'iv', 't', 's'].map((c) => `      - {name: ${c}}`).join('\n')}
`;

// an automatic candidate with a change signal (MAX(updated_at)); payments (no watermark) has none
const STAMPED_YAML = `  - source_id: dim
    domain_id: sales
    table: stamped
    watermark_column: updated_at
    columns:
      - {name: id, data_type: integer}
      - {name: name, data_type: varchar}
      - {name: updated_at, data_type: timestamp}
`;

describe.skipIf(postgres.skip || redisService.skip)('hot tables over real Redis and PostgreSQL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-hot-it-'));
  const url = postgres.skip ? undefined : new URL(postgres.url as string);
  const pgLine = (id: string) => `{id: ${id}, type: postgresql, host: "${url!.hostname}", port: ${url!.port}, database: ${DB}, username: "${decodeURIComponent(url!.username)}"}`;
  let admin: pg.Client;
  let db: pg.Client;
  const instances: ShoalInstance[] = [];
  const redises: OwnRedis[] = [];

  const yamlFor = (redisUrl: string | undefined, bounds = '') => {
    // the result cache is off: every answer is computed (hot or live)
    const extra = `cache: {enabled: false${redisUrl ? `, redis_url: "${redisUrl}"` : ''}}\n${bounds ? `hot_tables: {${bounds}}\n` : ''}`;
    const y = hotSalesYaml({ src: pgLine('src'), dim: pgLine('dim'), extra });
    return y.replace('roles:\n', `${KINDS_YAML}${STAMPED_YAML}roles:\n`);
  };
  const start = async (yaml: string, opts: { hot?: false; metrics?: MetricsRegistry; importConfig?: boolean } = {}) => {
    const { config } = loadConfig(yaml);
    const i = await ShoalInstance.start({ config, baseDir: dir, pollMs: 60_000, ...opts });
    instances.push(i);
    return i;
  };
  const redisStart = async (port?: number) => {
    const r = await OwnRedis.start(port);
    redises.push(r);
    return r;
  };

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${DB}`);
    await admin.query(`CREATE DATABASE ${DB}`);
    db = new pg.Client({ connectionString: postgres.url?.replace(/\/[^/]*$/, `/${DB}`) });
    await db.connect();
    for (const t of data) {
      await db.query(ddl(t));
      await db.query(insert(t));
    }
    await db.query(KINDS_DDL);
    await db.query(`INSERT INTO kinds VALUES ${KINDS_ROWS.join(', ')}`);
    await db.query('CREATE TABLE stamped (id integer, name varchar, updated_at timestamp)');
    await db.query("INSERT INTO stamped SELECT i, 'name-' || i, TIMESTAMP '2024-01-01' + i * INTERVAL '1 minute' FROM generate_series(1, 20) i");
  });

  afterAll(async () => {
    for (const i of instances) await i.close().catch(() => undefined);
    for (const r of redises) await r.stop();
    await db?.end();
    await admin?.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`).catch(() => undefined);
    await admin?.end();
    rmSync(dir, { recursive: true, force: true });
  });

  it('law: hot, hot with Redis killed mid-run, and cache disabled return the same multiset', async () => {
    const redis = await redisStart();
    const metrics = new MetricsRegistry();
    const hot = await start(yamlFor(redis.url), { metrics });
    const live = await start(yamlFor(undefined), { hot: false });
    expect(hot.hot!.backendKind).toBe('redis');
    expect(hot.hot!.status().find((s) => s.table === 'sales.customers')?.state).toBe('cached');
    let run = 0;
    let inlinedBefore = 0;
    let liveAfter = 0;
    await fc.assert(
      fc.asyncProperty(lawQueryArb, viewerArb, async (sql, viewer) => {
        if (++run === 60) await redis.kill(); // mid-run: no client error, answers unchanged
        const a = await answer(hot, sql, viewer);
        const b = await answer(live, sql, viewer);
        expect(same(a)).toEqual(same(b));
        if (a.ok && a.hot && run < 60) inlinedBefore++;
        if (a.ok && !a.hot && run > 60) liveAfter++;
        if (run > 60) expect(a.ok && a.hot).toBe(false); // an unreachable Redis means nothing is served from the cache
      }),
      { numRuns: 120 },
    );
    expect(inlinedBefore).toBeGreaterThan(10);
    expect(liveAfter).toBeGreaterThan(10);
    expect(metrics.value('shoal_cache_hits_total', { tier: 'hot' })).toBeGreaterThanOrEqual(inlinedBefore);
    expect(metrics.value('shoal_cache_fallbacks_total', { tier: 'hot' })).toBeGreaterThan(0);
    expect(metrics.render()).toMatch(/shoal_cache_bytes\{tier="hot"\} \d+/);
  }, 600_000);

  it('type fidelity: a hot table of every common PostgreSQL type answers exactly as live (types, cells, equality)', async () => {
    const redis = await redisStart();
    const hot = await start(yamlFor(redis.url));
    const live = await start(yamlFor(undefined), { hot: false });
    expect(hot.hot!.status().find((s) => s.table === 'sales.kinds')).toMatchObject({ state: 'cached', rows: 4 });
    const queries = [
      'SELECT k.*, p.amount AS pa FROM sales.kinds k JOIN sales.payments p ON p.id = k.id',
      'SELECT k.id FROM sales.kinds k JOIN sales.payments p ON p.id = k.id WHERE k.amount = 12.3 OR k.big = -1.5 OR k.n = 9223372036854775807',
      "SELECT k.id, k.ts, k.dt FROM sales.kinds k JOIN sales.payments p ON p.id = k.id WHERE k.ts > TIMESTAMP '2000-01-01 00:00:00' OR k.dt = DATE '1999-12-31'",
      'SELECT k.id, k.amount * 2 AS a2, k.big + 1 AS b1, k.d / 2 AS d2, k.n / 2 AS n1, k.s - 1 AS s1 FROM sales.kinds k JOIN sales.payments p ON p.id = k.id WHERE k.n IS NOT NULL',
      "SELECT k.id, k.j, k.js, k.u, k.iv, k.tm, k.tz, k.t FROM sales.kinds k JOIN sales.payments p ON p.id = k.id WHERE k.t <> '' OR k.b",
      'SELECT k.b, count(*) AS n, sum(k.amount) AS total, max(k.ts) AS latest FROM sales.kinds k JOIN sales.payments p ON p.id = k.id GROUP BY k.b',
    ];
    for (const sql of queries) {
      const a = await answer(hot, sql, VIEWERS[0]!);
      const b = await answer(live, sql, VIEWERS[0]!);
      expect(a.ok && a.hot, sql).toBe(true);
      expect(same(a), sql).toEqual(same(b));
    }
  }, 120_000);

  it('bounds: one row over max_rows, or one byte over max_bytes, is not cached and Redis sees no write', async () => {
    const redis = await redisStart();
    const r = new Redis(redis.url);
    try {
      const writes = async () => {
        const info = await r.info('commandstats');
        // blobs are written only through the conditional-write script (EVAL); invalidations INCR
        return ['eval', 'incr'].map((c) => Number(new RegExp(`cmdstat_${c}:calls=(\\d+)`).exec(info)?.[1] ?? 0)).reduce((x, y) => x + y, 0);
      };
      const customers = data.find((t) => t.name === 'customers')!.rows.length;
      // exactly at the row bound: cached, its blob in Redis
      const at = await start(yamlFor(redis.url, `max_rows: ${customers}`));
      // every instance here shares one registry, so one deployment namespace
      const keys = hotKeys(at.registry.deploymentId);
      const blob = keys.blob('sales.customers');
      const customerKeys = keys.blob('sales.customers').replace(/blob$/, '*');
      const cached = at.hot!.status().find((s) => s.table === 'sales.customers')!;
      expect(cached.state).toBe('cached');
      expect(await r.exists(blob)).toBe(1);
      const bytes = cached.bytes!;
      expect(bytes).toBe(Buffer.byteLength((await r.get(blob))!.slice((await r.get(blob))!.indexOf('\n') + 1), 'utf8'));
      await at.close();
      await r.flushall();
      // one row over
      let before = await writes();
      const overRows = await start(yamlFor(redis.url, `max_rows: ${customers - 1}`));
      expect(overRows.hot!.status().find((s) => s.table === 'sales.customers')).toMatchObject({ state: 'over_rows' });
      expect(await r.exists(blob)).toBe(0);
      const q = await answer(overRows, 'SELECT c.id, p.id AS pid FROM sales.customers c JOIN sales.payments p ON p.customer_id = c.id', VIEWERS[0]!);
      expect(q.ok && !q.hot && q.rows.length > 0).toBe(true); // served live, no error
      await overRows.hot!.settled();
      expect(await r.exists(blob)).toBe(0);
      expect(await r.exists(keys.generation('sales.customers'))).toBe(0);
      await overRows.close();
      // kinds is cached by this instance (within bounds): count only customers' keys
      expect((await r.keys(customerKeys))).toEqual([]);
      await r.flushall();
      // exactly at the byte bound: cached; one byte under it: not cached, no write
      const atBytes = await start(yamlFor(redis.url, `max_bytes: ${bytes}`));
      expect(atBytes.hot!.status().find((s) => s.table === 'sales.customers')).toMatchObject({ state: 'cached', bytes });
      await atBytes.close();
      await r.flushall();
      before = await writes();
      const overBytes = await start(yamlFor(redis.url, `max_bytes: ${bytes - 1}`));
      expect(overBytes.hot!.status().find((s) => s.table === 'sales.customers')).toMatchObject({ state: 'over_bytes' });
      expect(await r.keys(customerKeys)).toEqual([]);
      const kindsBytes = overBytes.hot!.status().find((s) => s.table === 'sales.kinds')!;
      // the only writes are those of the tables within bounds (kinds, if it fits)
      expect((await writes()) - before).toBe(kindsBytes.state === 'cached' ? 1 : 0);
      await overBytes.close();
    } finally {
      r.disconnect();
    }
  }, 120_000);

  it('two instances sharing Redis: an invalidation on one is honoured by the other (pub/sub, no TTL wait)', async () => {
    const redis = await redisStart();
    const a = await start(yamlFor(redis.url, 'refresh_interval: 3600'));
    const b = await start(yamlFor(redis.url, 'refresh_interval: 3600'));
    const sql = 'SELECT c.id, c.name FROM sales.customers c JOIN sales.payments p ON p.customer_id = c.id WHERE c.id = 7';
    const statusOf = (i: ShoalInstance) => i.hot!.status().find((s) => s.table === 'sales.customers')!;
    const before = await answer(b, sql, VIEWERS[0]!);
    expect(before.ok && before.hot).toBe(true);
    const genBefore = statusOf(b).generation;
    await db.query("UPDATE customers SET name = 'renamed-in-source' WHERE id = 7");
    try {
      // B still serves its cached rows: the change is invisible until an invalidation
      const stale = await answer(b, sql, VIEWERS[0]!);
      expect(stale.ok && stale.hot && stale.rows.every((r) => !r.includes('renamed-in-source'))).toBe(true);
      expect(await a.invalidateCaches('sales.customers')).toEqual({ propagated: true });
      // poll B (generous timeout, no timed assertion) until it has reloaded under the new generation
      await until('B to reload', () => statusOf(b).state === 'cached' && statusOf(b).generation !== genBefore);
      const after = await answer(b, sql, VIEWERS[0]!);
      expect(after.ok && after.hot && after.rows.some((r) => r.includes('renamed-in-source'))).toBe(true);
    } finally {
      await db.query(`UPDATE customers SET name = 'name-7-${['EU', 'US', 'APAC'][7 % 3]}' WHERE id = 7`);
    }
  }, 120_000);

  it('Redis down at start: the instance starts and answers live; once Redis is up it reconnects and serves hot rows', async () => {
    const port = await freePort();
    const live = await start(yamlFor(undefined), { hot: false });
    const metrics = new MetricsRegistry();
    const hot = await start(yamlFor(`redis://127.0.0.1:${port}`), { metrics });
    const sql = 'SELECT c.id, c.email, p.amount FROM sales.customers c JOIN sales.payments p ON p.customer_id = c.id';
    for (const v of VIEWERS) {
      const a = await answer(hot, sql, v);
      expect(a).toMatchObject({ ok: true, hot: false });
      expect(same(a)).toEqual(same(await answer(live, sql, v)));
    }
    expect(metrics.value('shoal_cache_fallbacks_total', { tier: 'hot' })).toBeGreaterThan(0);
    await redisStart(port);
    // the subscription comes back, every copy is reloaded (generous timeout, no timed assertion)
    await until('hot rows after Redis came up', async () => {
      await hot.hot!.settled();
      return (await answer(hot, sql, VIEWERS[1]!)).ok && hot.hot!.status().find((s) => s.table === 'sales.customers')?.state === 'cached';
    }, 60_000);
    for (const v of VIEWERS) {
      const a = await answer(hot, sql, v);
      expect(a.ok && a.hot).toBe(true);
      expect(same(a)).toEqual(same(await answer(live, sql, v)));
    }
  }, 120_000);
  it('issue 14: a committed PostgreSQL update reaches the join within revalidate_interval (watermark signal); a table without a signal is never automatic', async () => {
    const redis = await redisStart();
    const hot = await start(yamlFor(redis.url, 'refresh_interval: 3600'));
    const keys = hot.hot!.status().map((s) => s.table);
    expect(keys).toContain('sales.stamped');
    expect(keys).not.toContain('sales.payments'); // PostgreSQL, no watermark_column: no signal, not automatic
    const join = 'SELECT s.id, s.name FROM sales.stamped s JOIN sales.payments p ON p.id = s.id WHERE s.id = 1';
    const single = 'SELECT s.name FROM sales.stamped s WHERE s.id = 1';
    const query = async (sql: string) => {
      const r = await hot.query({ sql, role: 'admin', vars: {} }, new AbortController().signal);
      const rows: unknown[][] = [];
      for await (const b of r.batches) rows.push(...b.map((x) => [...x]));
      return { rows, headers: r.headers ?? {} };
    };
    // the first read promotes it; poll until the join is served from the copy
    await until('stamped to be served hot', async () => {
      await hot.hot!.settled();
      return (await query(join)).headers['x-shoal-hot']?.includes('sales.stamped') ?? false;
    });
    await db.query("UPDATE stamped SET name = 'committed-change', updated_at = now() WHERE id = 1");
    const direct = await query(single);
    expect(direct.headers['x-shoal-route']).toBe('direct:dim');
    expect(direct.rows).toEqual([['committed-change']]);
    // within the bound the join may still read the old copy; past it, never (generous poll, no timed assertion)
    await until('the join to show the committed change', async () => JSON.stringify((await query(join)).rows).includes('committed-change'));
    await until('the reloaded copy to serve it', async () => {
      await hot.hot!.settled();
      const r = await query(join);
      return r.headers['x-shoal-hot']?.includes('sales.stamped') === true && JSON.stringify(r.rows).includes('committed-change');
    });
    // every hot answer says its age, and a copy with a signal is never older than revalidate_interval (1 s)
    const served = await query(join);
    const age = parseHotAgeHeader(served.headers['x-shoal-hot-age'] ?? '').get('sales.stamped');
    expect(age).toBeDefined();
    expect(age!).toBeLessThan(1);
  }, 120_000);
});
