/**
 * Resolve an MV to what readers should see: the snapshot the refresh catalog publishes
 * (`snapshot_id`, written only by a fenced commit), or "live" when none was ever published. Every
 * instance resolves through the catalog, so all read the same committed snapshot; the answer is
 * cached per MV for at most `maxAgeMs` (default 1 s) to keep the catalog off the query path.
 */
import { ShoalError } from '../errors.js';
import type { MvRow } from './refresh-catalog.js';
import type { SnapshotStore } from './snapshot-store.js';

export type MvResolution =
  | { readonly kind: 'snapshot'; readonly snapshotId: string; readonly path: string }
  /**
   * `snapshot_missing`: the catalog publishes a snapshot this instance cannot see (a store that is
   * not really shared, or wiped): served live rather than failing, and the header says so.
   */
  | { readonly kind: 'live'; readonly reason: 'never_materialized' | 'not_registered' | 'snapshot_missing' };

export interface MvResolverOptions {
  /** How long a resolution may be served from cache (ms, default 1000; 0 = always ask). */
  readonly maxAgeMs?: number;
  /** Monotonic-enough clock for cache ages (default Date.now). */
  readonly now?: () => number;
}

interface Cached {
  readonly at: number;
  readonly value: Promise<MvResolution>;
}

export class MvResolver {
  private readonly cache = new Map<string, Cached>();
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(
    private readonly catalog: { get(id: string): Promise<MvRow | null> },
    private readonly store: Pick<SnapshotStore, 'pathOf' | 'exists'>,
    options: MvResolverOptions = {},
  ) {
    this.maxAgeMs = options.maxAgeMs ?? 1000;
    this.now = options.now ?? (() => Date.now());
  }

  resolve(mvId: string): Promise<MvResolution> {
    const now = this.now();
    const hit = this.cache.get(mvId);
    if (hit && now - hit.at < this.maxAgeMs) return hit.value;
    const value = this.lookup(mvId);
    this.cache.set(mvId, { at: now, value });
    // a failed lookup is not cached: the next query asks again
    value.catch(() => {
      if (this.cache.get(mvId)?.value === value) this.cache.delete(mvId);
    });
    return value;
  }

  /** Forget a cached resolution (this instance just published a snapshot). */
  invalidate(mvId?: string): void {
    if (mvId === undefined) this.cache.clear();
    else this.cache.delete(mvId);
  }

  private async lookup(mvId: string): Promise<MvResolution> {
    let row: MvRow | null;
    try {
      row = await this.catalog.get(mvId);
    } catch (e) {
      throw new ShoalError('MV_CATALOG_UNAVAILABLE', `cannot resolve MV ${mvId}: the refresh catalog is unreachable`, {
        hint: 'check the registry database; MV reads resume when it answers',
        cause: e,
      });
    }
    if (!row) return { kind: 'live', reason: 'not_registered' };
    if (row.snapshotId === null) return { kind: 'live', reason: 'never_materialized' };
    if (!(await this.store.exists(row.snapshotId))) return { kind: 'live', reason: 'snapshot_missing' };
    return { kind: 'snapshot', snapshotId: row.snapshotId, path: this.store.pathOf(row.snapshotId) };
  }
}
