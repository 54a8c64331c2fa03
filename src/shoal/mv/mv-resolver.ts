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
   * `snapshot_unreadable`: the published file failed to read; it was quarantined (moved aside in
   * the store, so every peer serves live too) and is being rebuilt.
   */
  | { readonly kind: 'live'; readonly reason: 'never_materialized' | 'not_registered' | 'snapshot_missing' | 'snapshot_unreadable' };

export interface MvResolverOptions {
  /** How long a resolution may be served from cache (ms, default 1000; 0 = always ask). */
  readonly maxAgeMs?: number;
  /** Monotonic-enough clock for cache ages (default Date.now). */
  readonly now?: () => number;
  /**
   * Read a published snapshot's file once (per snapshot, per instance) before serving it; a
   * failure quarantines it. Absent: snapshots are served unchecked.
   */
  readonly verify?: (path: string) => Promise<void>;
  /** A published snapshot failed `verify` and was quarantined (the service rebuilds it). */
  readonly onUnreadable?: (mvId: string, snapshotId: string, error: unknown) => void;
}

interface Cached {
  readonly at: number;
  readonly value: Promise<MvResolution>;
}

export class MvResolver {
  private readonly cache = new Map<string, Cached>();
  /** Snapshots that read back whole once: not read again by this instance (they are immutable). */
  private readonly verified = new Set<string>();
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(
    private readonly catalog: { get(id: string): Promise<MvRow | null> },
    private readonly store: Pick<SnapshotStore, 'pathOf' | 'exists'> & Partial<Pick<SnapshotStore, 'quarantine'>>,
    private readonly options: MvResolverOptions = {},
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

  /**
   * Re-read a snapshot a query was bound to and failed on (it read whole once, but a file can be
   * damaged later); quarantine it when it fails again. True when it was quarantined.
   */
  async recheck(mvId: string, snapshotId: string): Promise<boolean> {
    if (!this.options.verify) return false;
    try {
      await this.options.verify(this.store.pathOf(snapshotId));
      return false;
    } catch (e) {
      await this.quarantine(mvId, snapshotId, e);
      return true;
    }
  }

  private async quarantine(mvId: string, snapshotId: string, error: unknown): Promise<void> {
    this.verified.delete(snapshotId);
    await this.store.quarantine?.(snapshotId);
    this.invalidate(mvId);
    this.options.onUnreadable?.(mvId, snapshotId, error);
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
    const path = this.store.pathOf(row.snapshotId);
    if (this.options.verify && !this.verified.has(row.snapshotId)) {
      try {
        await this.options.verify(path);
        this.verified.add(row.snapshotId);
      } catch (e) {
        await this.quarantine(mvId, row.snapshotId, e);
        return { kind: 'live', reason: 'snapshot_unreadable' };
      }
    }
    return { kind: 'snapshot', snapshotId: row.snapshotId, path };
  }
}
