/**
 * Hot tables through a real instance (registry, DuckDB, in-process cache) over two SQLite files:
 * the hot path answers exactly as the live path for every viewer (law S5/S6), the cached rows are
 * governed (RLS, masks, hidden columns), no caller SQL reaches the cached relation, and
 * invalidation (admin API) and the refresh loop bring changed rows in. The result cache is off,
 * so every answer is computed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHotAgeHeader } from '../../../src/shoal/cache/hot-age.js';
import { hotRelationName } from '../../../src/shoal/cache/hot-values.js';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { adminPlugin } from '../../../src/shoal/server/admin-plugin.js';
import { buildApp } from '../../../src/shoal/server/app.js';
import { MetricsRegistry } from '../../../src/shoal/server/metrics.js';
import type { Timer } from '../../../src/shoal/registry/timer.js';
import { type Table, salesData, sqlLiteral } from '../sql/duckdb-harness.js';
import { VIEWERS, lawQueryArb, viewerArb } from '../sql/pushdown-law.js';
import { answer, hotSalesYaml, same } from './hot-fixture.js';

const data = salesData();
const table = (name: string): Table => data.find((t) => t.name === name)!;

function writeDb(path: string, t: Table): void {
  const db = new Database(path);
  db.exec(`CREATE TABLE ${t.name} (${t.cols.map(([n, ty]) => `${n} ${ty}`).join(', ')})`);
  db.exec(`INSERT INTO ${t.name} VALUES ${t.rows.map((r) => `(${r.map(sqlLiteral).join(', ')})`).join(', ')}`);
  db.close();
}

async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A timer the test fires by hand. */
class ManualTimer implements Timer {
  pending = new Map<number, () => void>();
  private next = 0;
  setTimeout(fn: () => void, _ms: number): unknown {
    const h = ++this.next;
    this.pending.set(h, fn);
    return h;
  }
  clearTimeout(h: unknown): void {
    this.pending.delete(h as number);
  }
  fire(): void {
    const fns = [...this.pending.values()];
    this.pending.clear();
    for (const f of fns) f();
  }
}


describe('hot tables through a real instance (in-process cache)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-hot-'));
  let hot: ShoalInstance;
  let live: ShoalInstance;
  let app: FastifyInstance;
  let now = 1_000_000;
  const timer = new ManualTimer();
  const metrics = new MetricsRegistry();

  beforeAll(async () => {
    writeDb(join(dir, 'dim.db'), table('customers'));
    writeDb(join(dir, 'shop.db'), table('payments'));
    const yaml = hotSalesYaml({ src: '{id: src, type: sqlite, path: shop.db}', dim: '{id: dim, type: sqlite, path: dim.db}', extra: 'hot_tables: {refresh_interval: 60}\ncache: {enabled: false}\nauth: {provider: none}\n' });
    // the admin API owns the catalog: one test below mutates a table through it
    const { config } = loadConfig(yaml.replace('control_plane: {', 'control_plane: {catalog: registry, '));
    hot = await ShoalInstance.start({ config, baseDir: dir, pollMs: 60_000, metrics, hot: { clock: () => now, timer } });
    live = await ShoalInstance.start({ config, baseDir: dir, pollMs: 60_000, importConfig: false, hot: false });
    app = await buildApp({ service: hot, metrics, plugins: [adminPlugin(hot)] });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await hot?.close();
    await live?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('hot: true loads the table at start, with the live relation\'s column types', () => {
    const s = hot.hot!.status().find((x) => x.table === 'sales.customers');
    expect(s).toMatchObject({ state: 'cached', reason: 'explicit', rows: 40, loads: 1 });
    expect(s!.bytes).toBeGreaterThan(0);
  });

  it('law: the hot path and the live path return the same multiset for every viewer and query', async () => {
    let inlined = 0;
    await fc.assert(
      fc.asyncProperty(lawQueryArb, viewerArb, async (sql, viewer) => {
        const a = await answer(hot, sql, viewer);
        const b = await answer(live, sql, viewer);
        expect(same(a)).toEqual(same(b));
        if (a.ok && a.hot) inlined++;
      }),
      { numRuns: 120 },
    );
    expect(inlined).toBeGreaterThan(20);
    expect(metrics.value('shoal_cache_hits_total', { tier: 'hot' })).toBeGreaterThanOrEqual(inlined);
  }, 300_000);

  it('an empty live answer keeps the declared column types (a DATE predicate over an empty SQLite landing binds), as the hot path does', async () => {
    // found by the law above: the live landing of zero rows typed a DATE column BIGINT and the engine refused the query
    const sql = "WITH t AS (SELECT c.score FROM sales.customers c WHERE (c.score > 99 AND c.signup >= DATE '2024-01-01')) SELECT * FROM t";
    for (const viewer of VIEWERS) {
      const [a, b] = [await answer(hot, sql, viewer), await answer(live, sql, viewer)];
      expect(b).toMatchObject({ ok: true, rows: [] });
      expect(same(a)).toEqual(same(b));
    }
  });

  it('cached rows are governed: RLS, the mask and the hidden column apply on the hot path', async () => {
    const sql = 'SELECT c.id, c.email, c.region, p.amount FROM sales.customers c JOIN sales.payments p ON p.customer_id = c.id';
    const eu = await hot.query({ sql, role: 'analyst', vars: { 'provisa.region': 'EU' } }, new AbortController().signal);
    expect(eu.headers?.['x-shoal-hot']).toContain('sales.customers');
    const rows: unknown[][] = [];
    for await (const b of eu.batches) rows.push(...b.map((r) => [...r]));
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(r[2]).toBe('EU');
      expect(String(r[1])).toMatch(/^.{2}\*\*\*@/);
      expect(Number(r[3])).toBeGreaterThanOrEqual(100);
    }
    const hidden = await answer(hot, 'SELECT c.ssn FROM sales.customers c JOIN sales.payments p ON p.customer_id = c.id', VIEWERS[1]!);
    expect(hidden).toEqual({ ok: false, code: 'SQL_UNKNOWN_COLUMN' });
  });

  it('no caller SQL reaches the cached relation: by its name, or by a CTE named like it or like the table', async () => {
    const rel = hotRelationName('sales.customers');
    const direct = await answer(hot, `SELECT * FROM ${rel}`, VIEWERS[1]!);
    expect(direct).toEqual({ ok: false, code: 'SQL_UNKNOWN_TABLE' });
    // a CTE named like the relation: the caller's CTE is renamed, its reference is its own
    const v = VIEWERS[1]!;
    const shadow = await answer(hot, `WITH ${rel} AS (SELECT 1 AS id) SELECT c.email FROM sales.customers c JOIN sales.payments p ON p.customer_id = c.id WHERE c.id IN (SELECT id FROM ${rel})`, v);
    const shadowLive = await answer(live, `WITH ${rel} AS (SELECT 1 AS id) SELECT c.email FROM sales.customers c JOIN sales.payments p ON p.customer_id = c.id WHERE c.id IN (SELECT id FROM ${rel})`, v);
    expect(same(shadow)).toEqual(same(shadowLive));
    // a CTE named like the table reads the governed table, never raw rows (study H3)
    const sql = 'WITH customers AS (SELECT * FROM sales.customers) SELECT customers.email, customers.region FROM customers JOIN sales.payments p ON p.customer_id = customers.id';
    const a = await answer(hot, sql, v);
    expect(a.ok && a.hot).toBe(true);
    expect(same(a)).toEqual(same(await answer(live, sql, v)));
    if (a.ok) for (const r of a.rows) expect(r).toMatch(/\*\*\*@.*"EU"/);
  });

  it('a query routed directly to the dimension\'s own source is not inlined (the source holds the table)', async () => {
    const r = await hot.query({ sql: 'SELECT count(*) AS n FROM sales.customers', role: 'admin', vars: {} }, new AbortController().signal);
    expect(r.headers?.['x-shoal-route']).toBe('direct:dim');
    expect(r.headers?.['x-shoal-hot']).toBeUndefined();
  });

  const joinSql = 'SELECT c.id, c.name FROM sales.customers c JOIN sales.payments p ON p.customer_id = c.id WHERE c.id = 3';
  const changeName = (name: string) => {
    const db = new Database(join(dir, 'dim.db'));
    db.prepare('UPDATE customers SET name = ? WHERE id = 3').run(name);
    db.close();
  };

  it('invalidation on demand (POST /admin/cache/invalidate) drops the rows; the reload reads the source again', async () => {
    changeName('renamed-by-test');
    const before = await answer(hot, joinSql, VIEWERS[0]!);
    expect(before.ok && before.hot && before.rows.every((r) => !r.includes('renamed-by-test'))).toBe(true); // still the cached rows
    const r = await app.inject({ method: 'POST', url: '/admin/cache/invalidate', headers: { 'x-provisa-role': 'admin' }, payload: { table: 'sales.customers' } });
    expect(r.json()).toEqual({ invalidated: 'sales.customers', propagated: true });
    await hot.hot!.settled();
    expect(hot.hot!.status().find((x) => x.table === 'sales.customers')).toMatchObject({ state: 'cached', loads: 2 });
    const after = await answer(hot, joinSql, VIEWERS[0]!);
    expect(after.ok && after.hot && after.rows.some((x) => x.includes('renamed-by-test'))).toBe(true);
  });

  it('GET /admin/cache reports the backend and each candidate table\'s state (admin only)', async () => {
    const r = await app.inject({ method: 'GET', url: '/admin/cache', headers: { 'x-provisa-role': 'admin' } });
    const body = r.json() as { hot: { backend: string; healthy: boolean; tables: { table: string; state: string; reason: string }[] } };
    expect(body.hot.backend).toBe('memory');
    expect(body.hot.healthy).toBe(true);
    expect(body.hot.tables.find((t) => t.table === 'sales.customers')).toMatchObject({ state: 'cached', reason: 'explicit' });
    expect(body.hot.tables.find((t) => t.table === 'sales.payments')?.reason).toBe('auto');
    expect((await app.inject({ method: 'GET', url: '/admin/cache', headers: { 'x-provisa-role': 'analyst' } })).statusCode).toBe(403);
  });

  it('the invalidation endpoint is admin-only and validates its body', async () => {
    const forbidden = await app.inject({ method: 'POST', url: '/admin/cache/invalidate', headers: { 'x-provisa-role': 'analyst' }, payload: {} });
    expect(forbidden.statusCode).toBe(403);
    const bad = await app.inject({ method: 'POST', url: '/admin/cache/invalidate', headers: { 'x-provisa-role': 'admin' }, payload: { table: 3 } });
    expect(bad.statusCode).toBe(400);
    const all = await app.inject({ method: 'POST', url: '/admin/cache/invalidate', headers: { 'x-provisa-role': 'admin' }, payload: {} });
    expect(all.json()).toEqual({ invalidated: '*', propagated: true });
    await hot.hot!.settled();
  });

  it('the refresh loop (injected clock and timer) reloads rows older than the interval; a stale entry is served live', async () => {
    changeName('renamed-by-refresh');
    const loads = hot.hot!.status().find((x) => x.table === 'sales.customers')!.loads;
    now += 61_000; // past refresh_interval: the entry is stale and must not be served
    const stale = await answer(hot, joinSql, VIEWERS[0]!);
    expect(stale.ok && !stale.hot && stale.rows.some((x) => x.includes('renamed-by-refresh'))).toBe(true);
    await hot.hot!.settled();
    timer.fire();
    await hot.hot!.settled();
    const s = hot.hot!.status().find((x) => x.table === 'sales.customers')!;
    expect(s.loads).toBeGreaterThan(loads);
    expect(s.loadedAt).toBe(now);
    const fresh = await answer(hot, joinSql, VIEWERS[0]!);
    expect(fresh.ok && fresh.hot && fresh.rows.some((x) => x.includes('renamed-by-refresh'))).toBe(true);
  });

  it('a registry mutation of the table (admin API) invalidates its cached rows: the next copy is read under the new definition', async () => {
    changeName('renamed-by-mutation');
    const before = hot.hot!.status().find((x) => x.table === 'sales.customers')!;
    const cached = await answer(hot, joinSql, VIEWERS[0]!);
    expect(cached.ok && cached.hot && cached.rows.every((r) => !r.includes('renamed-by-mutation'))).toBe(true);
    const table = loadConfig(hotSalesYaml({ src: '{id: src, type: sqlite, path: shop.db}', dim: '{id: dim, type: sqlite, path: dim.db}' })).config.tables.find((t) => t.table === 'customers')!;
    const r = await app.inject({ method: 'POST', url: '/admin/tables', headers: { 'x-provisa-role': 'admin' }, payload: { ...table, description: 'customers, described' } });
    expect(r.statusCode).toBe(200);
    await hot.hot!.settled();
    const after = hot.hot!.status().find((x) => x.table === 'sales.customers')!;
    expect(after.state).toBe('cached');
    expect(after.generation).not.toBe(before.generation);
    const fresh = await answer(hot, joinSql, VIEWERS[0]!);
    expect(fresh.ok && fresh.hot && fresh.rows.some((x) => x.includes('renamed-by-mutation'))).toBe(true);
  });

  it('a committed change to the source reaches the join within revalidate_interval: the copy is revalidated against its change signal', async () => {
    // issue 14: a single-table query (direct route) saw a committed update while a join served the old copy for up to 300 s
    await hot.hot!.settled();
    changeName('renamed-in-source');
    const direct = await answer(hot, 'SELECT c.name FROM sales.customers c WHERE c.id = 3', VIEWERS[0]!);
    expect(direct.ok && direct.rows.some((r) => r.includes('renamed-in-source'))).toBe(true);
    now += 1_000; // the copy's stamp was last checked a whole revalidate_interval ago: it is not served
    const join1 = await answer(hot, joinSql, VIEWERS[0]!);
    expect(join1.ok && !join1.hot && join1.rows.some((r) => r.includes('renamed-in-source'))).toBe(true);
    await hot.hot!.settled(); // the revalidation found a new signal and reloaded
    const join2 = await answer(hot, joinSql, VIEWERS[0]!);
    expect(join2.ok && join2.hot && join2.rows.some((r) => r.includes('renamed-in-source'))).toBe(true);
    expect(hot.hot!.status().find((x) => x.table === 'sales.customers')?.stamp).toMatch(/^file_stat:\d+@\d+ns;/);
  });

  it('every response that used a hot copy says its age (x-shoal-hot-age), counted from its last revalidation', async () => {
    await hot.hot!.settled();
    const validatedAt = hot.hot!.status().find((x) => x.table === 'sales.customers')!.validatedAt!;
    now = validatedAt + 400;
    const r = await hot.query({ sql: joinSql, role: 'admin', vars: {} }, new AbortController().signal);
    for await (const _ of r.batches) void _;
    expect(r.headers?.['x-shoal-hot']).toContain('sales.customers');
    const ages = parseHotAgeHeader(r.headers!['x-shoal-hot-age']!);
    expect([...ages.keys()].join(', ')).toBe(r.headers!['x-shoal-hot']); // one age per hot table, in the same order
    expect(ages.get('sales.customers')).toBe(0.4);
    const viaHttp = await app.inject({ method: 'POST', url: '/data/sql', headers: { 'x-provisa-role': 'admin' }, payload: { sql: joinSql } });
    expect(viaHttp.headers['x-shoal-hot-age']).toMatch(/(^|, )sales\.customers=0\.4\d\d(,|$)/);
    const direct = await hot.query({ sql: 'SELECT count(*) AS n FROM sales.customers', role: 'admin', vars: {} }, new AbortController().signal);
    expect(direct.headers?.['x-shoal-hot-age']).toBeUndefined();
  });

  it('the copy is an engine-resident table; a reload swaps to a new one and drops the superseded one', async () => {
    await hot.hot!.settled();
    const before = hot.hot!.status().find((x) => x.table === 'sales.customers')!;
    expect(await hot.engine.resident!.list()).toContain(before.resident);
    expect(await hot.invalidateCaches('sales.customers')).toEqual({ propagated: true });
    await hot.hot!.settled();
    const after = hot.hot!.status().find((x) => x.table === 'sales.customers')!;
    expect(after.resident).not.toBe(before.resident);
    await until(async () => !(await hot.engine.resident!.list()).includes(before.resident!));
    expect(await hot.engine.resident!.list()).toContain(after.resident);
  });
});

describe('per-instance (in-process) caches', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-hot-local-'));
  let a: ShoalInstance;
  let b: ShoalInstance;
  let now = 5_000_000;

  beforeAll(async () => {
    writeDb(join(dir, 'dim.db'), table('customers'));
    writeDb(join(dir, 'shop.db'), table('payments'));
    const { config } = loadConfig(hotSalesYaml({ src: '{id: src, type: sqlite, path: shop.db}', dim: '{id: dim, type: sqlite, path: dim.db}', extra: 'hot_tables: {refresh_interval: 30}\ncache: {enabled: false}\n' }));
    const timer = new ManualTimer(); // never fired: staleness alone decides here
    a = await ShoalInstance.start({ config, baseDir: dir, pollMs: 60_000, hot: { clock: () => now, timer } });
    b = await ShoalInstance.start({ config, baseDir: dir, pollMs: 60_000, importConfig: false, hot: { clock: () => now, timer } });
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('an invalidation reaches only the instance that took it; a peer stays stale at most refresh_interval', async () => {
    const sql = 'SELECT c.id, c.name FROM sales.customers c JOIN sales.payments p ON p.customer_id = c.id WHERE c.id = 5';
    const db = new Database(join(dir, 'dim.db'));
    db.prepare("UPDATE customers SET name = 'changed' WHERE id = 5").run();
    db.close();
    expect(await a.invalidateCaches('sales.customers')).toEqual({ propagated: true });
    await a.hot!.settled();
    const onA = await answer(a, sql, VIEWERS[0]!);
    expect(onA.ok && onA.hot && onA.rows.some((r) => r.includes('changed'))).toBe(true);
    const onB = await answer(b, sql, VIEWERS[0]!);
    expect(onB.ok && onB.hot && onB.rows.every((r) => !r.includes('changed'))).toBe(true); // stale, within the interval
    expect(b.hot!.backendKind).toBe('memory');
    now += 30_000; // the interval has passed: B's copy is no longer served
    const later = await answer(b, sql, VIEWERS[0]!);
    expect(later.ok && !later.hot && later.rows.some((r) => r.includes('changed'))).toBe(true);
    await b.hot!.settled();
    const reloaded = await answer(b, sql, VIEWERS[0]!);
    expect(reloaded.ok && reloaded.hot && reloaded.rows.some((r) => r.includes('changed'))).toBe(true);
  });
});
