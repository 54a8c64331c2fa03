/**
 * The hot cache's own rules, over the in-process backend and a real DuckDB engine for the bodies,
 * with a source whose reads the test can hold open: a load that raced an invalidation never
 * serves or stores its (possibly older) rows; stale copies are not served; the hot tier's
 * hit / miss / fallback accounting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HotCache, type HotBinding, type HotLoader } from '../../../src/shoal/cache/hot-cache.js';
import type { HotCandidate } from '../../../src/shoal/cache/hot-selection.js';
import { MemoryHotBackend } from '../../../src/shoal/cache/memory-hot-backend.js';
import { DEFAULT_STATEFUL, type TableConfig } from '../../../src/shoal/config/model.js';
import { DuckDbEngine } from '../../../src/shoal/engine/duckdb/duckdb-engine.js';
import type { Cell } from '../../../src/shoal/engine/engine.js';
import { MetricsRegistry } from '../../../src/shoal/server/metrics.js';
import type { Timer } from '../../../src/shoal/registry/timer.js';

const idle: Timer = { setTimeout: () => 0, clearTimeout: () => undefined };

function candidate(key: string, reason: HotCandidate['reason'], maxRows = 10, signal: HotCandidate['signal'] = { kind: 'none' }): HotCandidate {
  return { key, reason, maxRows, fingerprint: `fp-${key}`, signal, table: { table: key.split('.')[1] } as unknown as TableConfig };
}

/** The rows of the resident table a binding names (ordered by id), as `id:name`. */
async function residentRows(engine: DuckDbEngine, b: HotBinding | undefined): Promise<string[]> {
  if (!b) return [];
  const out: string[] = [];
  const rel = b.relation.map((p) => `"${p}"`).join('.');
  for await (const batch of engine.execute(`SELECT id, name FROM ${rel} ORDER BY id`)) for (const r of batch.rows) out.push(`${String(r[0])}:${String(r[1])}`);
  return out;
}

/** A source of rows per table whose reads can be held until the test releases them. */
class HeldSource {
  rows = new Map<string, Cell[][]>();
  /** The change signal per table (what `probe` reports). */
  signals = new Map<string, string>();
  reads = 0;
  probes = 0;
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
      probe: async (c) => {
        this.probes++;
        return this.signals.get(c.key) ?? null;
      },
      install: (name, body) => engine.resident.create(name, body),
      drop: (name) => engine.resident.drop(name),
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
    expect(await residentRows(engine, b)).toEqual(['1:new']);
    b?.release();
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
    expect(await residentRows(engine, flaky.binding('d.t'))).toEqual(['1:a']);
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
  describe('change signals and resident copies', () => {
    const signalled = (key: string, reason: HotCandidate['reason'] = 'explicit') => candidate(key, reason, 10, { kind: 'files', paths: ['/x'] });
    const revalidating = () => setup({ ...DEFAULT_STATEFUL.hot_tables, revalidate_interval: 1 });

    it('a copy is stamped with its signal; once the signal changes it is never served again, and the reload serves the new rows', async () => {
      const { cache, source, tick } = revalidating();
      source.rows.set('d.t', [[1, 'old']]);
      source.signals.set('d.t', 'file_stat:1@1');
      await cache.setCandidates([signalled('d.t')]);
      expect(cache.status()[0]).toMatchObject({ state: 'cached', stamp: 'file_stat:1@1' });
      const first = cache.binding('d.t');
      expect(await residentRows(engine, first)).toEqual(['1:old']);
      first?.release();
      // the source changes (its signal with it); past half the interval a read revalidates ahead
      source.rows.set('d.t', [[1, 'new']]);
      source.signals.set('d.t', 'file_stat:2@2');
      tick(500);
      const during = cache.binding('d.t'); // still within the bound: served while the probe runs
      during?.release();
      await cache.settled();
      expect(cache.status()[0]).toMatchObject({ state: 'cached', stamp: 'file_stat:2@2', loads: 2 });
      expect(await residentRows(engine, cache.binding('d.t'))).toEqual(['1:new']);
    });

    it('a copy whose stamp was not checked within revalidate_interval is not served; the read revalidates it', async () => {
      const { cache, source, tick } = revalidating();
      source.rows.set('d.t', [[1, 'a']]);
      source.signals.set('d.t', 's1');
      await cache.setCandidates([signalled('d.t')]);
      const probes = source.probes;
      tick(1_000);
      expect(cache.binding('d.t')).toBeUndefined(); // unchecked for the whole bound: live
      await cache.settled();
      expect(source.probes).toBe(probes + 1);
      const b = cache.binding('d.t'); // unchanged signal: valid again as of the probe
      expect(b).toBeDefined();
      expect(b!.ageSeconds).toBe(0);
      expect(source.reads).toBe(1); // revalidation read no rows
      b!.release();
    });

    it('a table without a signal is bounded by refresh_interval alone, and its age counts from its load', async () => {
      const { cache, source, tick } = revalidating();
      source.rows.set('d.t', [[1, 'a']]);
      await cache.setCandidates([candidate('d.t', 'explicit')]);
      tick(5_000);
      const b = cache.binding('d.t');
      expect(b?.ageSeconds).toBe(5);
      b?.release();
      expect(source.probes).toBe(1); // the load's own probe (null), no revalidation
    });

    it('a reload swaps to a new resident table; the superseded one is dropped only after its last lease', async () => {
      const { cache, source } = setup();
      source.rows.set('d.t', [[1, 'a']]);
      await cache.setCandidates([candidate('d.t', 'explicit')]);
      const held = cache.binding('d.t')!;
      const oldTable = held.relation[2]!;
      source.rows.set('d.t', [[1, 'b']]);
      await cache.invalidate('d.t');
      await cache.settled();
      const fresh = cache.binding('d.t')!;
      expect(fresh.relation[2]).not.toBe(oldTable);
      expect(fresh.relation[2]).toMatch(/_g1_[0-9a-f]{6}\d+$/); // named by generation
      // the query bound to the old copy still reads it, whole
      expect(await engine.resident.list()).toContain(oldTable);
      expect(await residentRows(engine, held)).toEqual(['1:a']);
      held.release();
      held.release(); // idempotent
      await new Promise((r) => setTimeout(r, 50));
      const tables = await engine.resident.list();
      expect(tables).not.toContain(oldTable);
      expect(tables).toContain(fresh.relation[2]);
      fresh.release();
    });

    it("a peer's blob stamped with a signal the source no longer shows is not used: the rows are read from the source", async () => {
      const { cache, source, backend } = setup();
      source.rows.set('d.t', [[1, 'current']]);
      source.signals.set('d.t', 'now');
      const peerRows = { fingerprint: 'fp-d.t', loadedAt: 1_000, stamp: 'before', columns: [{ name: 'id', type: 'INTEGER' }, { name: 'name', type: 'VARCHAR' }], rows: [[1, 'stale']] };
      await backend.write('d.t', { generation: '0', json: JSON.stringify(peerRows) }, 60);
      await cache.setCandidates([signalled('d.t')]);
      expect(source.reads).toBe(1);
      expect(await residentRows(engine, cache.binding('d.t'))).toEqual(['1:current']);
      expect((await backend.read('d.t'))?.json).toContain('"stamp":"now"');
    });
  });
});
