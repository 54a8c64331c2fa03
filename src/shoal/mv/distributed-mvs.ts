/**
 * `distributed` MVs skip the refresh catalog: each instance materializes them into its OWN scratch
 * store (`localStore`), comparing the input version before and after; when the inputs moved
 * meanwhile it retries, and after `quiescenceRetries` reports the source as not quiescent
 * (`onNotQuiescent`, a `not_quiescent` event, the `notQuiescent` counters) and keeps serving what it
 * had, rather than a copy no peer agrees with.
 */
import type { Engine } from '../engine/engine.js';
import { ShoalError } from '../errors.js';
import type { GovernanceCatalog } from '../sql/index.js';
import type { LocalRefreshReport } from './last-refresh.js';
import { materialize } from './materialize.js';
import type { MvEvent } from './mv-events.js';
import type { MvInfo } from './mv-info.js';
import type { MvResolution } from './mv-resolver.js';
import type { RefreshVersions } from './refresh-catalog.js';
import type { RefreshInputs } from './refresh-inputs.js';
import type { RefreshProgress } from './refresh-progress.js';
import type { RefreshResult } from './refresh-under-lease.js';
import type { SnapshotStore } from './snapshot-store.js';

/** A distributed MV's materialization on this instance. */
interface LocalSnapshot {
  readonly snapshotId: string;
  readonly path: string;
  readonly versions: RefreshVersions;
  readonly atMs: number;
}

/** What a local refresh reads and builds with, from the MV service that owns it. */
export interface DistributedDeps {
  /** The instance's own scratch store (absent: distributed MVs are served live). */
  readonly store: SnapshotStore | undefined;
  readonly engine: Engine;
  readonly now: () => number;
  /** Extra materializations when the inputs moved during one. */
  readonly quiescenceRetries: number;
  /** The catalog as the service role sees it (as synced last). */
  service(): GovernanceCatalog;
  inputs(mv: MvInfo): Promise<RefreshInputs>;
  buildSql(mv: MvInfo, resolutions: ReadonlyMap<string, MvResolution>): Promise<string>;
  emit(e: MvEvent): void;
  readonly onNotQuiescent?: ((e: ShoalError) => void) | undefined;
  readonly afterLocalBuild?: ((mvId: string, attempt: number) => Promise<void>) | undefined;
}

/** This instance's copies of its distributed MVs, their last refreshes and quiescence reports. */
export class DistributedMvs {
  private readonly local = new Map<string, LocalSnapshot>();
  private readonly lastLocal = new Map<string, LocalRefreshReport>();
  private notQuiescentCount = 0;
  private readonly notQuiescentByMv = new Map<string, number>();

  constructor(private readonly deps: DistributedDeps) {}

  /** Forget the copies of MVs that are no longer distributed (a catalog sync). */
  retain(isDistributed: (id: string) => boolean): void {
    for (const id of [...this.local.keys()]) if (!isDistributed(id)) this.local.delete(id);
  }

  /** What a distributed MV resolves to for a reader: its copy here, else live. */
  resolve(mv: MvInfo): MvResolution {
    const held = this.local.get(mv.id);
    return held ? { kind: 'snapshot', snapshotId: held.snapshotId, path: held.path } : { kind: 'live', reason: 'never_materialized' };
  }

  /** The last finished refresh of a distributed MV here (undefined: none yet). */
  lastRefresh(id: string): LocalRefreshReport | undefined {
    return this.lastLocal.get(id);
  }

  stats(): { readonly notQuiescent: number; readonly notQuiescentByMv: Readonly<Record<string, number>>; readonly localSnapshots: number } {
    return { notQuiescent: this.notQuiescentCount, notQuiescentByMv: Object.fromEntries(this.notQuiescentByMv), localSnapshots: this.local.size };
  }

  /** The snapshot ids of the copies held (the scratch store's GC keeps them). */
  snapshotIds(): Set<string> {
    return new Set([...this.local.values()].map((l) => l.snapshotId));
  }

  /** Whether a refresh of this MV is worth running: no copy yet, or one the inputs (or interval) outdate. */
  async due(mv: MvInfo, versions: () => Promise<RefreshVersions>): Promise<boolean> {
    const held = this.local.get(mv.id);
    return !held || this.heldDue(held, await versions(), mv);
  }

  private heldDue(held: LocalSnapshot, now: RefreshVersions, mv: MvInfo): boolean {
    if (held.versions.definitionVersion !== now.definitionVersion) return true;
    if (now.inputVersion !== null) return held.versions.inputVersion !== now.inputVersion;
    return this.deps.now() - held.atMs >= mv.table.mv_refresh_interval * 1000;
  }

  /**
   * Materialize a distributed MV into this instance's scratch store, without the catalog. The input
   * version is compared before and after: equal means the copy is of one quiescent input version
   * (what every peer converges on); different means retry, and finally report not quiescent.
   */
  async refresh(mv: MvInfo, progress: RefreshProgress, force: boolean): Promise<RefreshResult> {
    const deps = this.deps;
    const store = deps.store;
    if (!store) throw new ShoalError('MV_NO_LOCAL_STORE', `MV ${mv.id} is distributed, and this instance has no scratch store`, { hint: 'it is served live' });
    const finish = (result: RefreshResult): RefreshResult => {
      if (result.outcome === 'skipped') return result;
      this.lastLocal.set(mv.id, {
        outcome: result.outcome,
        snapshotId: result.outcome === 'refreshed' ? result.snapshotId : null,
        rowCount: result.outcome === 'refreshed' ? result.rowCount : null,
        error: result.outcome === 'failed' ? result.error : null,
        attempts: progress.attempt,
        startedAtMs: progress.startedAtMs,
        durationMs: deps.now() - progress.startedAtMs,
      });
      return result;
    };
    if (mv.engineSql === null) return finish({ outcome: 'failed', error: mv.error ?? 'view_sql does not plan', epoch: 0 });
    let before = await deps.inputs(mv);
    const held = this.local.get(mv.id);
    if (!force && held && !this.heldDue(held, before.versions, mv)) return { outcome: 'skipped', reason: 'up_to_date', holder: null };
    const retries = deps.quiescenceRetries;
    for (let attempt = 0; attempt <= retries; attempt++) {
      const snapshotId = store.newSnapshotId(mv.id);
      Object.assign(progress, { phase: 'materializing', attempt: attempt + 1, rows: 0, snapshotId });
      let built;
      try {
        built = await materialize({
          table: mv.table,
          serviceCatalog: deps.service(),
          engine: deps.engine,
          store,
          snapshotId,
          sql: await deps.buildSql(mv, before.resolutions),
          onProgress: (rows) => (progress.rows = rows),
          onWriting: () => (progress.phase = 'writing_snapshot'),
        });
        await deps.afterLocalBuild?.(mv.id, attempt);
      } catch (e) {
        await store.discard(snapshotId).catch(() => undefined);
        return finish({ outcome: 'failed', error: (e as Error).message, epoch: 0 });
      }
      progress.phase = 'checking_inputs';
      const after = await deps.inputs(mv);
      if (after.versions.definitionVersion === before.versions.definitionVersion && after.versions.inputVersion === before.versions.inputVersion) {
        this.local.set(mv.id, { snapshotId, path: built.path, versions: after.versions, atMs: deps.now() });
        return finish({ outcome: 'refreshed', snapshotId, rowCount: built.rowCount, epoch: 0 });
      }
      await store.discard(snapshotId);
      before = after;
    }
    this.notQuiescentCount++;
    this.notQuiescentByMv.set(mv.id, (this.notQuiescentByMv.get(mv.id) ?? 0) + 1);
    const error = new ShoalError('MV_SOURCE_NOT_QUIESCENT', `the inputs of distributed MV ${mv.id} changed during each of ${retries + 1} materializations`, {
      where: mv.id,
      hint: 'the previous copy (or the live view) is served; a distributed MV converges only once its sources are quiescent',
    });
    deps.emit({ kind: 'not_quiescent', mvId: mv.id });
    deps.onNotQuiescent?.(error);
    return finish({ outcome: 'failed', error: error.message, epoch: 0 });
  }
}
