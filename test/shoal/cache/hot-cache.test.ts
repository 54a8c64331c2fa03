/**
 * The hot cache's own rules, over the in-process backend and a real DuckDB engine for the bodies,
 * with a source whose reads the test can hold open: a load that raced an invalidation never
 * serves or stores its (possibly older) rows; stale copies are not served; the hot tier's
 * hit / miss / fallback accounting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HotCache, type HotLoader } from '../../../src/shoal/cache/hot-cache.js';
import type { HotCandidate } from '../../../src/shoal/cache/hot-selection.js';
import { MemoryHotBackend } from '../../../src/shoal/cache/memory-hot-backend.js';
import { DEFAULT_STATEFUL, type TableConfig } from '../../../src/shoal/config/model.js';
import { DuckDbEngine } from '../../../src/shoal/engine/duckdb/duckdb-engine.js';
import type { Cell } from '../../../src/shoal/engine/engine.js';
import { MetricsRegistry } from '../../../src/shoal/server/metrics.js';
import type { Timer } from '../../../src/shoal/registry/timer.js';

const idle: Timer = { setTimeout: () => 0, clearTimeout: () => undefined };

function candidate(key: string, reason: HotCandidate['reason'], maxRows = 10): HotCandidate {
  return { key, reason, maxRows, fingerprint: `fp-${key}`, table: { table: key.split('.')[1] } as unknown as TableConfig };
}

/** A source of rows per table whose reads can be held until the test releases them. */
class HeldSource {
  rows = new Map<string, Cell[][]>();
  reads = 0;
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;
  hold(): void {
    this.gate = new Promise((r) => (this.open = r));
  }
  release(): void {
    this.open?.();
    this.gate = undefined;
  }
  loader(engine: DuckDbEngine): HotLoader {
    return {
      count: async (c) => (this.rows.get(c.key) ?? []).length,
      load: async (c, limit) => {
        this.reads++;
        const snapshot = (this.rows.get(c.key) ?? []).map((r) => [...r]); // read now, return later
        await this.gate;
        return { columns: [{ name: 'id', type: 'INTEGER' }, { name: 'name', type: 'VARCHAR' }], rows: snapshot.slice(0, limit) };
      },
      verify: async (body, signal) => {
        for await (const _ of engine.execute(`SELECT count(*) FROM (${body}) AS v`, { signal })) void _;
      },
    };
  }
}

describe('HotCache', () => {
  let engine: DuckDbEngine;
  beforeAll(async () => {
    engine = await DuckDbEngine.create({});
  });
  afterAll(async () => {
    await engine?.close();
  });

  const setup = (bounds = DEFAULT_STATEFUL.hot_tables) => {
    let now = 1_000;
    const source = new HeldSource();
    const backend = new MemoryHotBackend(() => now);
    const metrics = new MetricsRegistry();
    const cache = new HotCache({ backend, loader: source.loader(engine), bounds: { ...bounds, refresh_interval: 60 }, clock: () => now, timer: idle, metrics });
    return { cache, source, backend, metrics, tick: (ms: number) => (now += ms) };
  };

  it('a load that raced an invalidation neither serves nor stores its rows; the reload after it does', async () => {
    const { cache, source, backend } = setup();
    source.rows.set('d.t', [[1, 'old']]);
    source.hold();
    const first = cache.setCandidates([candidate('d.t', 'explicit')]);
    await new Promise((r) => setTimeout(r, 20)); // the load has read 'old' and waits
    source.rows.set('d.t', [[1, 'new']]);
    await cache.invalidate('d.t');
    source.release();
    await first;
    await cache.settled();
    const b = cache.binding('d.t');
    expect(b?.body).toContain("'new'");
    expect(b?.body).not.toContain("'old'");
    const stored = await backend.read('d.t');
    expect(stored?.generation).toBe('1');
    expect(stored?.json).toContain('"new"');
    expect(cache.status()[0]).toMatchObject({ state: 'cached', generation: '1', loads: 1 });
  });

  it('a copy older than refresh_interval is not served; the next read starts a reload', async () => {
    const { cache, source, tick } = setup();
    source.rows.set('d.t', [[1, 'a']]);
    await cache.setCandidates([candidate('d.t', 'explicit')]);
    expect(cache.binding('d.t')).toBeDefined();
    tick(60_000);
    expect(cache.binding('d.t')).toBeUndefined();
    await cache.settled();
    expect(cache.binding('d.t')).toBeDefined();
    expect(source.reads).toBe(2); // the stored blob expired with the copy (EX refresh_interval): read from the source again
    expect(cache.status()[0]).toMatchObject({ state: 'cached', loads: 2, loadedAt: 61_000 });
  });

  it('a failed load is retried by a read once the retry pause has passed, not left to the refresh loop', async () => {
    const source = new HeldSource();
    source.rows.set('d.t', [[1, 'a']]);
    let elapsed = 0;
    let failNext = true;
    const loader = source.loader(engine);
    const flaky = new HotCache({
      backend: new MemoryHotBackend(() => 1_000),
      loader: { ...loader, load: async (c, limit, signal) => {
        if (failNext) {
          failNext = false;
          throw new Error('backend reconnecting');
        }
        return loader.load(c, limit, signal);
      } },
      bounds: { ...DEFAULT_STATEFUL.hot_tables, refresh_interval: 3600 },
      clock: () => 1_000 + elapsed,
      timer: idle,
    });
    await flaky.setCandidates([candidate('d.t', 'explicit')]);
    expect(flaky.status()[0]).toMatchObject({ state: 'failed', detail: 'backend reconnecting' });
    // within the pause a read neither serves nor retries
    expect(flaky.binding('d.t')).toBeUndefined();
    await flaky.settled();
    expect(flaky.status()[0]).toMatchObject({ state: 'failed' });
    elapsed += 1_000;
    expect(flaky.binding('d.t')).toBeUndefined(); // this read starts the retry
    await flaky.settled();
    expect(flaky.status()[0]).toMatchObject({ state: 'cached', loads: 1 });
    expect(flaky.binding('d.t')?.body).toContain("'a'");
    await flaky.close();
  });

  it('accounting: a first read of an automatic candidate is a miss, then hits; an explicit table over its bound is a fallback; an automatic one is not counted', async () => {
    const { cache, source, metrics } = setup();
    source.rows.set('d.small', [[1, 'a']]);
    source.rows.set('d.big', Array.from({ length: 11 }, (_, i) => [i, 'x']));
    source.rows.set('d.pinned', Array.from({ length: 11 }, (_, i) => [i, 'x']));
    await cache.setCandidates([candidate('d.small', 'auto'), candidate('d.big', 'auto'), candidate('d.pinned', 'explicit')]);
    const read = (keys: string[]) => {
      const inlined = new Set(keys.filter((k) => cache.binding(k) !== undefined));
      cache.account(keys, inlined);
    };
    read(['d.small', 'd.big', 'd.pinned']);
    const count = (n: string) => metrics.value(n, { tier: 'hot' });
    expect([count('shoal_cache_hits_total'), count('shoal_cache_misses_total'), count('shoal_cache_fallbacks_total')]).toEqual([0, 2, 1]);
    await cache.settled();
    read(['d.small', 'd.big', 'd.pinned']);
    expect([count('shoal_cache_hits_total'), count('shoal_cache_misses_total'), count('shoal_cache_fallbacks_total')]).toEqual([1, 2, 2]);
    expect(cache.status().map((s) => [s.table, s.state])).toEqual([['d.small', 'cached'], ['d.big', 'over_rows'], ['d.pinned', 'over_rows']]);
    expect(metrics.value('shoal_cache_bytes', { tier: 'hot' })).toBe(cache.status()[0]!.bytes);
  });

  it('rows that grew past the bound between the count and the read are not cached, and the backend is not written', async () => {
    const { source, backend } = setup();
    source.rows.set('d.t', Array.from({ length: 10 }, (_, i) => [i, 'x']));
    const loader = source.loader(engine);
    const growing: HotLoader = {
      ...loader,
      count: async (c, signal) => {
        const n = await loader.count(c, signal);
        source.rows.get('d.t')!.push([99, 'late']); // an insert lands right after the count
        return n;
      },
    };
    const racing = new HotCache({ backend, loader: growing, bounds: { ...DEFAULT_STATEFUL.hot_tables, refresh_interval: 60 }, timer: idle });
    await racing.setCandidates([candidate('d.t', 'explicit')]);
    expect(racing.status()[0]).toMatchObject({ state: 'over_rows' });
    expect(await backend.read('d.t')).toBeUndefined();
    expect(racing.binding('d.t')).toBeUndefined();
  });
});
