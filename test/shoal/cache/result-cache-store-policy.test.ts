/**
 * What the result cache stores, and when: only an answer read to its end, no partial, failed,
 * oversized or inexact one; and a store that fails is a live answer, never an error.
 */
import { describe, expect, it } from 'vitest';
import { CACHE_AGE_HEADER, CACHE_HEADER, ResultCache, type ResultRequest } from '../../../src/shoal/cache/result-cache.js';
import type { ResultKeyInput } from '../../../src/shoal/cache/result-key.js';
import { MemoryResultStore } from '../../../src/shoal/cache/result-memory-store.js';
import type { ResultStore } from '../../../src/shoal/cache/result-store.js';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { MetricsRegistry } from '../../../src/shoal/server/metrics.js';
import type { QueryResult } from '../../../src/shoal/server/query-service.js';
import { catalogFromConfig } from '../../../src/shoal/sql/index.js';

const { config } = loadConfig({
  text: `
domains: [{id: d}]
sources: [{id: s, type: csv, path: t.csv}]
tables: [{source_id: s, domain_id: d, table: t, columns: [{name: a, data_type: integer}]}]
roles: [{id: r, capabilities: [full_results], domain_access: ["*"]}]
`,
});
const ctx = { model: config, governance: catalogFromConfig(config) };
const input = (sql: string): ResultKeyInput => ({ epoch: 1, route: 'engine', sql, userSql: 'SELECT a FROM d.t', role: 'r', vars: {}, tables: ['d.t'] });

function live(batches: (readonly unknown[])[][], failAfter?: number): QueryResult {
  return {
    columns: [{ name: 'a', type: 'integer' }],
    headers: {},
    batches: (async function* () {
      for (const [i, b] of batches.entries()) {
        if (failAfter !== undefined && i === failAfter) throw new Error('source went away');
        yield b;
      }
    })(),
  };
}

async function readAll(r: QueryResult, limit = Number.POSITIVE_INFINITY): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for await (const b of r.batches) {
    out.push(...b.map((row) => [...row]));
    if (out.length >= limit) break;
  }
  return out;
}

async function cacheOver(store: ResultStore = new MemoryResultStore(1 << 20), options: { maxEntryBytes?: number; clock?: () => number } = {}) {
  const metrics = new MetricsRegistry();
  const cache = (await ResultCache.open({ enabled: true, default_ttl: 60 }, { store, metrics, ...options }))!;
  return { cache, metrics };
}

describe('what the result cache stores', () => {
  it('an answer read to its end is stored, and served as the same rows and columns', async () => {
    const { cache } = await cacheOver();
    const miss = await cache.lookup(input('q1'), ctx);
    expect(miss.status).toBe('MISS');
    const rows = await readAll(miss.keep(live([[[1n], [2]], [[new Date(0)]]])));
    const hit = await cache.lookup(input('q1'), ctx);
    expect(hit.status).toBe('HIT');
    const served = hit.hit({ 'x-shoal-route': 'engine' });
    expect(served.headers).toEqual({ 'x-shoal-route': 'engine', [CACHE_HEADER]: 'HIT', [CACHE_AGE_HEADER]: '0' });
    expect(served.columns).toEqual([{ name: 'a', type: 'integer' }]);
    expect(await readAll(served)).toStrictEqual(rows);
  });

  it('an answer the client stopped reading, or that failed part way, is not stored', async () => {
    const { cache } = await cacheOver();
    await readAll((await cache.lookup(input('partial'), ctx)).keep(live([[[1]], [[2]], [[3]]])), 1);
    expect((await cache.lookup(input('partial'), ctx)).status).toBe('MISS');
    await expect(readAll((await cache.lookup(input('failed'), ctx)).keep(live([[[1]], [[2]]], 1)))).rejects.toThrow('source went away');
    expect((await cache.lookup(input('failed'), ctx)).status).toBe('MISS');
  });

  it('an answer larger than the entry bound, or with a value it cannot store exactly, is passed through and not stored', async () => {
    const { cache } = await cacheOver(undefined, { maxEntryBytes: 200 });
    const big = Array.from({ length: 100 }, (_, i) => [i]);
    expect(await readAll((await cache.lookup(input('big'), ctx)).keep(live([big])))).toEqual(big);
    expect((await cache.lookup(input('big'), ctx)).status).toBe('MISS');
    class Opaque {}
    const odd = new Opaque();
    const got = await readAll((await cache.lookup(input('odd'), ctx)).keep(live([[[1]], [[odd]]])));
    expect(got[1]![0]).toBe(odd);
    expect((await cache.lookup(input('odd'), ctx)).status).toBe('MISS');
  });

  it('counts hits, misses and bytes under tier="result"', async () => {
    const store = new MemoryResultStore(1 << 20);
    const { cache, metrics } = await cacheOver(store);
    await readAll((await cache.lookup(input('m'), ctx)).keep(live([[[1]]])));
    await cache.lookup(input('m'), ctx);
    await cache.lookup(input('m'), ctx);
    const tier = { tier: 'result' };
    expect([metrics.value('shoal_cache_hits_total', tier), metrics.value('shoal_cache_misses_total', tier), metrics.value('shoal_cache_fallbacks_total', tier)]).toEqual([2, 1, 0]);
    expect(metrics.value('shoal_cache_bytes', tier)).toBe(store.bytes());
    expect(store.bytes()).toBeGreaterThan(0);
    expect(await cache.invalidate('d.t')).toBe(true);
    expect(metrics.value('shoal_cache_bytes', tier)).toBe(0);
  });

  it('a store that fails is a live answer and a fallback; an invalidation it refuses says so without throwing', async () => {
    const failing: ResultStore = {
      tier: 'redis',
      get: () => Promise.reject(new Error('down')),
      set: () => Promise.reject(new Error('down')),
      invalidate: () => Promise.reject(new Error('down')),
      bytes: () => 0,
      close: async () => undefined,
    };
    const { cache, metrics } = await cacheOver(failing);
    const l = await cache.lookup(input('f'), ctx);
    expect(l.status).toBe('MISS');
    expect(l.headers['x-shoal-cache-reason']).toBe('cache store unavailable');
    expect(await readAll(l.keep(live([[[7]]])))).toEqual([[7]]);
    expect(metrics.value('shoal_cache_fallbacks_total', { tier: 'result' })).toBe(1);
    expect(metrics.value('shoal_cache_misses_total', { tier: 'result' })).toBe(0);
    expect(await cache.invalidate()).toBe(false);
  });

  it('a stored entry older than its TTL on the injected clock is not served, even if the store still returns it', async () => {
    let now = 0;
    const forever = new MemoryResultStore(1 << 20, () => 0); // a store whose own clock never moves
    const { cache } = await cacheOver(forever, { clock: () => now });
    await readAll((await cache.lookup(input('ttl'), ctx)).keep(live([[[1]]])));
    now = 59_999;
    expect((await cache.lookup(input('ttl'), ctx)).headers).toMatchObject({ [CACHE_HEADER]: 'HIT', [CACHE_AGE_HEADER]: '59' });
    now = 60_000;
    expect((await cache.lookup(input('ttl'), ctx)).status).toBe('MISS');
  });

  it('is not opened when the config disables it', async () => {
    expect(await ResultCache.open({ enabled: false, default_ttl: 60 })).toBeUndefined();
  });
});

describe('the fast path before planning', () => {
  const request = { epoch: 1, role: 'r', sql: 'SELECT a FROM d.t', vars: { 'provisa.x': '1' } };
  const planned = (over: Partial<ResultKeyInput> = {}): ResultKeyInput => ({ ...input('governed'), vars: request.vars, ...over });

  it('answers a repeat of a request whose planned lookup was cacheable, with its route', async () => {
    const { cache, metrics } = await cacheOver();
    expect(await cache.lookupRequest(request)).toBeUndefined(); // never planned yet
    await readAll((await cache.lookup(planned(), ctx)).keep(live([[[1], [2]]])));
    const hit = await cache.lookupRequest(request);
    expect(hit?.headers).toEqual({ 'x-shoal-route': 'engine', [CACHE_HEADER]: 'HIT', [CACHE_AGE_HEADER]: '0' });
    expect(await readAll(hit!)).toEqual([[1], [2]]);
    expect(metrics.value('shoal_cache_hits_total', { tier: 'result' })).toBe(1);
  });

  it('needs the same epoch, role, SQL and every session variable, even one nothing reads', async () => {
    const { cache } = await cacheOver();
    await readAll((await cache.lookup(planned(), ctx)).keep(live([[[1]]])));
    const others: Partial<ResultRequest>[] = [{ epoch: 2 }, { role: 'admin' }, { sql: 'SELECT a FROM d.t ' }, { vars: {} }, { vars: { 'provisa.x': '2' } }, { vars: { 'provisa.x': '1', unrelated: 'y' } }];
    for (const other of others) {
      expect(await cache.lookupRequest({ ...request, ...other }), JSON.stringify(other)).toBeUndefined();
    }
    expect(await cache.lookupRequest(request)).toBeDefined();
  });

  it('does not remember MV reads (their snapshot is bound after planning), nor uncacheable queries', async () => {
    const { cache } = await cacheOver();
    await readAll((await cache.lookup(planned({ mv: 'd.t=snapshot:1' }), ctx)).keep(live([[[1]]])));
    expect(await cache.lookupRequest(request)).toBeUndefined();
    const clocked = { ...request, sql: 'SELECT now()' };
    await readAll((await cache.lookup(planned({ userSql: clocked.sql }), ctx)).keep(live([[[1]]])));
    expect(await cache.lookupRequest(clocked)).toBeUndefined();
  });

  it('falls through (counting nothing) when the entry expired, was invalidated, or the store fails', async () => {
    let now = 0;
    const { cache, metrics } = await cacheOver(undefined, { clock: () => now });
    await readAll((await cache.lookup(planned(), ctx)).keep(live([[[1]]])));
    now = 60_000;
    expect(await cache.lookupRequest(request)).toBeUndefined();
    now = 0;
    expect(await cache.lookupRequest(request)).toBeDefined();
    await cache.invalidate('d.t');
    expect(await cache.lookupRequest(request)).toBeUndefined();
    const failing: ResultStore = { tier: 'redis', get: () => Promise.reject(new Error('down')), set: async () => undefined, invalidate: async () => undefined, bytes: () => 0, close: async () => undefined };
    const down = await cacheOver(failing);
    await readAll((await down.cache.lookup(planned(), ctx)).keep(live([[[1]]])));
    expect(await down.cache.lookupRequest(request)).toBeUndefined();
    expect(down.metrics.value('shoal_cache_fallbacks_total', { tier: 'result' })).toBe(1); // the planned lookup's only
    expect(metrics.value('shoal_cache_hits_total', { tier: 'result' })).toBe(1);
  });
});
