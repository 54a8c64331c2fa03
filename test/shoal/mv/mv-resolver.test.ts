import { describe, expect, it } from 'vitest';
import type { MvRow } from '../../../src/shoal/mv/refresh-catalog.js';
import { MvResolver } from '../../../src/shoal/mv/mv-resolver.js';

/** A catalog that counts lookups; `snapshot` is what the row publishes now. */
function fakeCatalog() {
  const state = { snapshot: null as string | null, calls: 0, fail: false, present: true };
  return {
    state,
    async get(id: string): Promise<MvRow | null> {
      state.calls++;
      if (state.fail) throw new Error('database down');
      return state.present ? ({ id, snapshotId: state.snapshot } as MvRow) : null;
    },
  };
}
const missing = new Set<string>();
const store = { pathOf: (id: string) => `/store/${id}.parquet`, exists: async (id: string) => !missing.has(id) };

describe('MvResolver', () => {
  it('resolves to live until a snapshot is published, then to the published file', async () => {
    const cat = fakeCatalog();
    const r = new MvResolver(cat, store, { maxAgeMs: 0 });
    expect(await r.resolve('sales.m')).toEqual({ kind: 'live', reason: 'never_materialized' });
    cat.state.snapshot = 'sales.m/a';
    expect(await r.resolve('sales.m')).toEqual({ kind: 'snapshot', snapshotId: 'sales.m/a', path: '/store/sales.m/a.parquet' });
    // a published snapshot this instance cannot see (a store that is not shared): live, not an error
    cat.state.snapshot = 'sales.m/gone';
    missing.add('sales.m/gone');
    expect(await r.resolve('sales.m')).toEqual({ kind: 'live', reason: 'snapshot_missing' });
    cat.state.present = false;
    expect(await r.resolve('sales.m')).toEqual({ kind: 'live', reason: 'not_registered' });
  });

  it('serves a resolution from cache for at most maxAgeMs, then asks the catalog again', async () => {
    const cat = fakeCatalog();
    let now = 0;
    const r = new MvResolver(cat, store, { maxAgeMs: 1000, now: () => now });
    cat.state.snapshot = 'm/a';
    await r.resolve('m');
    cat.state.snapshot = 'm/b';
    now = 999;
    expect(await r.resolve('m')).toMatchObject({ snapshotId: 'm/a' });
    expect(cat.state.calls).toBe(1);
    now = 1000;
    expect(await r.resolve('m')).toMatchObject({ snapshotId: 'm/b' });
    expect(cat.state.calls).toBe(2);
    // invalidation (this instance just published) skips the wait
    cat.state.snapshot = 'm/c';
    r.invalidate('m');
    expect(await r.resolve('m')).toMatchObject({ snapshotId: 'm/c' });
  });

  it('concurrent readers share one lookup; a failed lookup is an MV_CATALOG_UNAVAILABLE error and is not cached', async () => {
    const cat = fakeCatalog();
    const r = new MvResolver(cat, store, { maxAgeMs: 60_000, now: () => 0 });
    await Promise.all([r.resolve('m'), r.resolve('m'), r.resolve('m')]);
    expect(cat.state.calls).toBe(1);
    r.invalidate();
    cat.state.fail = true;
    await expect(r.resolve('m')).rejects.toMatchObject({ code: 'MV_CATALOG_UNAVAILABLE' });
    cat.state.fail = false;
    cat.state.snapshot = 'm/x';
    expect(await r.resolve('m')).toMatchObject({ kind: 'snapshot', snapshotId: 'm/x' });
  });
});
