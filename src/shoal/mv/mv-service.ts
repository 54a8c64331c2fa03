/**
 * One instance's materialized views: the glue between the catalog model, the shared refresh
 * catalog (law S3), the snapshot store, the materializer and the resolver.
 *
 * - `sync(model)` (every catalog rebuild): learn the MVs and derived views, plan their view_sql as
 *   the service role (./derived-graph.ts), seed the MVs' catalog rows (idempotent across the fleet).
 * - `refresh(id)`: one coordinated refresh: claim for the current versions, build an unpublished
 *   snapshot under a heartbeat, publish it by the fenced commit.
 * - `bind(plan)`: before a governed query runs, bind each MV it reads to the published snapshot
 *   (resolved through the catalog, cached ≤ 1 s) or, if none was ever published, to its view_sql
 *   computed live; the response says which in the `x-shoal-mv` header (`<id>=snapshot:<sid>`,
 *   `<id>=local:<sid>` for a distributed MV's own copy, `<id>=live`). A derived view, and an MV
 *   computed live, bring what they read along (bound the same way, dependencies first).
 * - An MV over an MV is built from the upstream's snapshot, and stamped with its id; a view or an
 *   MV without a snapshot that it reads is computed inline (see `inputs`).
 * - `candidates()` / `collectGarbage()`: what the scheduler loop claims, and snapshot GC.
 * - `running()`, `lastRefresh()`, `observe()`: progress and timing for the admin API, events for
 *   the /metrics series.
 *
 * `distributed` MVs skip the catalog: each instance keeps its own copy (./distributed-mvs.ts).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { HeartbeatOptions } from '../../core/lease/index.js';
import type { SqlClient } from '../../core/sql/sql-client.js';
import type { CatalogModel } from '../config/model.js';
import type { Engine } from '../engine/engine.js';
import { ShoalError } from '../errors.js';
import type { GovernanceCatalog } from '../sql/index.js';
import { derivedBindings, type BoundQuery } from './derived-bindings.js';
import { mvDepth, planDerivedTables, type DerivedTable } from './derived-graph.js';
import { DistributedMvs } from './distributed-mvs.js';
import type { LastRefresh, LocalRefreshReport } from './last-refresh.js';
import { materialize } from './materialize.js';
import { MvObservers, type MvEvent } from './mv-events.js';
import type { MvInfo } from './mv-info.js';
import { bindMvRelations, mvRelationName, snapshotRelation } from './mv-relation.js';
import { MvResolver, type MvResolution } from './mv-resolver.js';
import { RefreshCatalog, type MvDefinition, type MvRow, type RefreshLogEntry, type RefreshVersions } from './refresh-catalog.js';
import { refreshInputs, type RefreshInputs } from './refresh-inputs.js';
import { runningRefresh, type RefreshProgress, type RunningRefresh } from './refresh-progress.js';
import { refreshUnderLease, type RefreshResult } from './refresh-under-lease.js';
import { serviceCatalog } from './service-identity.js';
import { DEFAULT_GC_GRACE_MS, type GcReport, type SnapshotStore } from './snapshot-store.js';

export interface MvServiceOptions {
  readonly db: SqlClient;
  readonly store: SnapshotStore;
  readonly engine: Engine;
  /** This instance's writer identity in the catalog (default host:pid:random). */
  readonly writer?: string;
  /** Lease length (ms, default the catalog's 120 s). */
  readonly leaseMs?: number;
  readonly heartbeat?: HeartbeatOptions;
  /** Resolution cache age (ms, default 1000). */
  readonly resolveMaxAgeMs?: number;
  /** Snapshot GC grace (ms, default the store's). */
  readonly gcGraceMs?: number;
  /** Wall clock (progress timing). */
  readonly now?: () => number;
  /** Called between writing the snapshot and the fenced commit (fault-injection tests). */
  readonly beforeCommit?: (mvId: string, snapshotId: string) => Promise<void>;
  /** The instance's own scratch store for `distributed` MVs (absent: they are served live). */
  readonly localStore?: SnapshotStore;
  /** Extra materializations of a distributed MV when its inputs moved during one (default 2). */
  readonly quiescenceRetries?: number;
  /** A distributed MV's source kept changing while it was materialized. */
  readonly onNotQuiescent?: (e: ShoalError) => void;
  /** A published snapshot failed to read (MV_SNAPSHOT_UNREADABLE), or rebuilding it failed. */
  readonly onSnapshotUnreadable?: (e: ShoalError) => void;
  /** Called after each local materialization of a distributed MV (tests inject input changes). */
  readonly afterLocalBuild?: (mvId: string, attempt: number) => Promise<void>;
}

export function defaultWriterId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

export class MvService {
  readonly writer: string;
  private mvs = new Map<string, MvInfo>();
  /** Every derived table (MVs and derived views) of the last synced catalog, by key. */
  private derived = new Map<string, DerivedTable>();
  private model: CatalogModel | undefined;
  private service: GovernanceCatalog | undefined;
  private readonly resolver: MvResolver;
  private readonly inFlight = new Map<string, RefreshProgress>();
  private readonly now: () => number;
  private readonly distributed: DistributedMvs;
  private readonly observers = new MvObservers();

  private constructor(
    readonly catalog: RefreshCatalog,
    readonly store: SnapshotStore,
    private readonly options: MvServiceOptions,
  ) {
    this.writer = options.writer ?? defaultWriterId();
    this.now = options.now ?? (() => Date.now());
    this.resolver = new MvResolver(catalog, store, {
      ...(options.resolveMaxAgeMs === undefined ? {} : { maxAgeMs: options.resolveMaxAgeMs }),
      verify: (path) => this.readWhole(path),
      onUnreadable: (mvId, snapshotId, error) => this.rebuildUnreadable(mvId, snapshotId, error),
    });
    this.distributed = new DistributedMvs({
      store: options.localStore,
      engine: options.engine,
      now: this.now,
      quiescenceRetries: options.quiescenceRetries ?? 2,
      service: () => this.service!,
      inputs: (mv) => this.inputs(mv),
      buildSql: (mv, resolutions) => this.buildSql(mv, resolutions),
      emit: (e) => this.observers.emit(e),
      onNotQuiescent: options.onNotQuiescent,
      afterLocalBuild: options.afterLocalBuild,
    });
  }

  static async open(options: MvServiceOptions): Promise<MvService> {
    const catalog = await RefreshCatalog.open(options.db, options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs });
    return new MvService(catalog, options.store, options);
  }

  /**
   * Learn the MVs and derived views of a catalog (absolute paths), plan their view_sql as the
   * service role, and seed the shared MVs' refresh-catalog rows.
   */
  async sync(model: CatalogModel): Promise<void> {
    const service = serviceCatalog(model);
    const planned = planDerivedTables(model, service, this.options.engine.name);
    const next = new Map<string, MvInfo>();
    for (const [key, d] of planned) {
      if (!d.materialized) continue;
      const t = d.table;
      const definition: MvDefinition = {
        id: d.id,
        sourceTables: d.reads,
        targetCatalog: null,
        targetSchema: t.schema,
        targetTable: t.table,
        refreshInterval: t.mv_refresh_interval,
        consistency: t.mv_consistency,
        customSql: t.view_sql ?? null,
      };
      next.set(key, { id: d.id, table: t, relation: mvRelationName(d.id), engineSql: d.engineSql, error: d.error, sourceTables: d.reads, definition });
    }
    this.model = model;
    this.service = service;
    this.derived = planned;
    this.mvs = next;
    this.distributed.retain((id) => next.get(id.toLowerCase())?.table.mv_consistency === 'distributed');
    for (const mv of next.values()) if (mv.table.mv_consistency === 'shared') await this.catalog.seed(mv.definition);
  }

  /** The MVs of the last synced catalog. */
  list(): readonly MvInfo[] {
    return [...this.mvs.values()];
  }

  info(id: string): MvInfo | undefined {
    return this.mvs.get(id.toLowerCase());
  }

  row(id: string): Promise<MvRow | null> {
    return this.catalog.get(this.info(id)?.id ?? id);
  }

  rows(): Promise<MvRow[]> {
    return this.catalog.list();
  }

  log(id: string, limit?: number): Promise<RefreshLogEntry[]> {
    return this.catalog.log(this.info(id)?.id ?? id, limit === undefined ? {} : { limit });
  }

  /**
   * How the MV's last finished refresh went: for a shared MV, the refresh log's last attempt (any
   * instance's, timed on the database clock); for a distributed one, this instance's own.
   */
  async lastRefresh(id: string): Promise<LastRefresh | null> {
    const mv = this.info(id);
    if (mv && mv.table.mv_consistency !== 'shared') {
      const l = this.distributed.lastRefresh(mv.id);
      return l ? { ...l, writer: this.writer, finishedAtMs: l.startedAtMs + l.durationMs } : null;
    }
    const e = await this.catalog.lastFinished(mv?.id ?? id);
    if (!e) return null;
    return { outcome: e.outcome, snapshotId: e.snapshotId, rowCount: e.rowCount, error: e.error ?? e.reason, writer: e.writer, finishedAtMs: e.createdAtMs, durationMs: e.durationMs };
  }

  /** The refreshes running on this instance now, with their phase, progress and timing. */
  running(): RunningRefresh[] {
    const now = this.now();
    return [...this.inFlight.entries()].map(([mvId, r]) => runningRefresh(mvId, r, now));
  }

  /** The last finished refresh of a distributed MV on this instance (null: none yet, or shared). */
  lastLocalRefresh(id: string): LocalRefreshReport | null {
    return this.distributed.lastRefresh(this.info(id)?.id ?? id) ?? null;
  }

  /** Follow refresh outcomes and quiescence reports (returns the unsubscribe). */
  observe(listener: (e: MvEvent) => void): () => void {
    return this.observers.observe(listener);
  }

  /** Counters for the admin API: not-quiescent reports (in all and per MV) and local copies held. */
  stats(): { readonly notQuiescent: number; readonly notQuiescentByMv: Readonly<Record<string, number>>; readonly localSnapshots: number } {
    return this.distributed.stats();
  }

  /** The versions a refresh of this MV would be for, now. */
  async versions(mv: MvInfo): Promise<RefreshVersions> {
    return (await this.inputs(mv)).versions;
  }

  /** What a refresh of this MV reads, now (./refresh-inputs.ts). */
  private inputs(mv: MvInfo): Promise<RefreshInputs> {
    return refreshInputs(mv, { model: this.model!, derived: this.derived, engine: this.options.engine, service: this.service!, resolveFresh: (id) => this.resolveFresh(id) });
  }

  /** An MV's resolution straight from the catalog (not the reader cache): a refresh stamps what it reads. */
  private resolveFresh(id: string): Promise<MvResolution> {
    const mv = this.info(id);
    if (mv && mv.table.mv_consistency === 'shared') this.resolver.invalidate(mv.id);
    return this.resolve(id);
  }

  /**
   * One refresh of an MV: coordinated through the refresh catalog for a `shared` MV, into this
   * instance's scratch store for a `distributed` one. `force` (a manual refresh) skips the version
   * and interval gates; a live lease held by anyone still excludes.
   */
  async refresh(id: string, options: { force?: boolean; traceId?: string } = {}): Promise<RefreshResult> {
    const mv = this.info(id);
    if (!mv) throw new ShoalError('NOT_FOUND', `no materialized view "${id}"`, { hint: 'GET /admin/mv lists the registered MVs' });
    const consistency = mv.table.mv_consistency;
    const progress: RefreshProgress = { consistency, phase: 'versions', attempt: 1, startedAtMs: this.now(), rows: 0, snapshotId: null, writer: this.writer };
    // a second refresh of the same MV here (admin and loop at once) keeps the first one's entry
    const tracked = !this.inFlight.has(mv.id);
    if (tracked) this.inFlight.set(mv.id, progress);
    this.observers.emit({ kind: 'refresh_started', mvId: mv.id });
    let outcome: RefreshResult['outcome'] | 'error' = 'error';
    try {
      const result = consistency === 'shared' ? await this.refreshShared(mv, progress, options) : await this.distributed.refresh(mv, progress, options.force ?? false);
      outcome = result.outcome;
      return result;
    } finally {
      if (tracked && this.inFlight.get(mv.id) === progress) this.inFlight.delete(mv.id);
      this.observers.emit({ kind: 'refresh_finished', mvId: mv.id, consistency, outcome, durationMs: this.now() - progress.startedAtMs });
    }
  }

  private async refreshShared(mv: MvInfo, progress: RefreshProgress, options: { force?: boolean; traceId?: string }): Promise<RefreshResult> {
    const { versions, resolutions } = await this.inputs(mv);
    progress.phase = 'claiming';
    const result = await refreshUnderLease(
      this.catalog,
      {
        definition: mv.definition,
        writer: this.writer,
        versions,
        ...(options.force ? { force: true } : {}),
        ...(options.traceId ? { traceId: options.traceId } : {}),
        ...(this.options.heartbeat ? { heartbeat: this.options.heartbeat } : {}),
      },
      {
        build: async (claim, signal) => {
          const sql = await this.buildSql(mv, resolutions);
          const snapshotId = this.store.newSnapshotId(mv.id);
          Object.assign(progress, { phase: 'materializing', snapshotId, writer: `${claim.grant.writer}#${claim.grant.epoch}` });
          const built = await materialize({
            table: mv.table,
            serviceCatalog: this.service!,
            engine: this.options.engine,
            store: this.store,
            snapshotId,
            sql,
            signal,
            onProgress: (rows) => (progress.rows = rows),
            onWriting: () => (progress.phase = 'writing_snapshot'),
          });
          progress.phase = 'committing';
          await this.options.beforeCommit?.(mv.id, snapshotId);
          return { snapshotId, rowCount: built.rowCount };
        },
        discard: (snapshotId) => this.store.discard(snapshotId),
      },
    );
    // Whatever the outcome, the caller asked about this MV's freshness: forget the cached
    // resolution, so this instance's next read sees what a peer published (skipped: held or
    // up_to_date) without waiting out the resolver's cache age.
    this.resolver.invalidate(mv.id);
    return result;
  }

  /**
   * MVs worth a claim attempt: shared ones never published, whose definition changed, whose inputs
   * moved since the last refresh, or (with no input signal) whose interval elapsed; never one a live
   * lease holds. An MV with a signal and unchanged inputs is not a candidate however old it is, so
   * an idle fleet does not fill the log with skips. Claims still decide. MVs that other MVs are
   * built on come first.
   */
  async candidates(): Promise<string[]> {
    const rows = new Map((await this.catalog.list()).map((r) => [r.id, r]));
    const due = new Set((await this.catalog.due()).map((r) => r.id));
    const out: string[] = [];
    for (const mv of this.mvs.values()) {
      if (mv.engineSql === null) continue;
      if (mv.table.mv_consistency !== 'shared') {
        if (this.options.localStore && (await this.distributed.due(mv, () => this.versions(mv)))) out.push(mv.id);
        continue;
      }
      const row = rows.get(mv.id);
      if (!row) {
        out.push(mv.id);
        continue;
      }
      if (!row.enabled || (row.writer !== null && (await this.catalog.leaseState(mv.id))?.live)) continue;
      const v = await this.versions(mv);
      const stale =
        row.snapshotId === null ||
        // quarantined (unreadable) or lost from the store: rebuild, whatever the inputs say
        !(await this.store.exists(row.snapshotId)) ||
        row.materializedDefinitionVersion !== v.definitionVersion ||
        (v.inputVersion !== null ? row.materializedInputVersion !== v.inputVersion : due.has(mv.id));
      if (stale) out.push(mv.id);
    }
    // MVs underneath first: one tick carries a change up through MVs over MVs
    const depth = (id: string): number => mvDepth(this.derived, id.toLowerCase());
    return out.sort((a, b) => depth(a) - depth(b));
  }

  /** Remove snapshots no catalog row publishes, past the grace period (see SnapshotStore). */
  async collectGarbage(): Promise<GcReport> {
    const referenced = new Set((await this.catalog.list()).flatMap((r) => (r.snapshotId ? [r.snapshotId] : [])));
    const grace = this.options.gcGraceMs === undefined ? {} : { graceMs: this.options.gcGraceMs };
    await this.options.localStore?.collectGarbage({ referenced: this.distributed.snapshotIds(), ...grace });
    const report = await this.store.collectGarbage({ referenced, ...grace });
    // the engine's copies of removed files (Trino: in the scratch area), under the same grace
    await this.options.engine.snapshots?.collectGarbage?.({ graceMs: this.options.gcGraceMs ?? DEFAULT_GC_GRACE_MS });
    return report;
  }

  /**
   * Read every row and column of a snapshot file once (hashing each row, so no column is skipped):
   * a file that fails to read — truncated, overwritten, a bad page — is quarantined, not served.
   */
  private async readWhole(path: string): Promise<void> {
    const reader = this.options.engine.snapshots;
    // an engine without DuckDB's hash() reads every cell by returning them all
    const sql = reader ? await reader.body(path) : `SELECT count(*), max(hash(s)) FROM ${snapshotRelation(path)} AS s`;
    for await (const _batch of this.options.engine.execute(sql, {})) void _batch;
  }

  /**
   * A published snapshot failed to read and was quarantined (readers are served live): rebuild it
   * now, whatever its inputs say (they are unchanged, which is why the loop alone would not), and
   * tell the operator.
   */
  private rebuildUnreadable(mvId: string, snapshotId: string, error: unknown): void {
    const cause = error instanceof Error ? error.message : String(error);
    this.options.onSnapshotUnreadable?.(
      new ShoalError('MV_SNAPSHOT_UNREADABLE', `MV ${mvId}: snapshot ${snapshotId} failed to read (${cause}); it was quarantined, the MV is served live and is being rebuilt`, {
        hint: 'check the snapshot store (materialize_store_url) for disk or copy errors; the quarantined file stays beside the others until garbage collection',
        cause: error,
      }),
    );
    this.observers.emit({ kind: 'snapshot_quarantined', mvId, snapshotId });
    void this.refresh(mvId, { force: true }).catch((e: unknown) => this.options.onSnapshotUnreadable?.(e instanceof ShoalError ? e : new ShoalError('MV_REFRESH_FAILED', `MV ${mvId}: rebuilding a quarantined snapshot failed: ${(e as Error).message}`, { cause: e })));
  }

  /** What an MV resolves to for a reader now (cached ≤ the resolver's max age). */
  resolve(id: string): Promise<MvResolution> {
    const mv = this.info(id);
    if (mv && mv.table.mv_consistency !== 'shared') return Promise.resolve(this.distributed.resolve(mv));
    return this.resolver.resolve(mv?.id ?? id);
  }

  /**
   * Bind the derived tables a governed plan reads (its `tables` keys): each MV to its snapshot or,
   * with none, to its view_sql live; each derived view to its view_sql, always live; and, for what
   * runs live, whatever it reads in turn.
   */
  async bind(plan: { readonly sql: string; readonly tables: readonly string[] }): Promise<BoundQuery> {
    // most plans read no derived table: nothing to resolve or bind (the walk would find the same)
    if (!plan.tables.some((t) => this.derived.has(t.toLowerCase()))) return { sql: plan.sql, headers: {} };
    const snapshots: { mvId: string; snapshotId: string }[] = [];
    const { bindings, notes } = await this.bindings(plan.tables, async (mv) => {
      const r = await this.resolve(mv.id);
      if (r.kind === 'snapshot' && mv.table.mv_consistency === 'shared') snapshots.push({ mvId: mv.id, snapshotId: r.snapshotId });
      return r;
    });
    return { sql: bindMvRelations(plan.sql, bindings), headers: notes.length > 0 ? { 'x-shoal-mv': notes.join(', ') } : {}, ...(snapshots.length > 0 ? { snapshots } : {}) };
  }

  /**
   * A query bound to `bound`'s snapshots failed: re-read each of them, and quarantine (and
   * rebuild) those that fail to read. True when any was: binding again serves those MVs live.
   */
  async recheck(bound: BoundQuery): Promise<boolean> {
    let any = false;
    for (const s of bound.snapshots ?? []) if (await this.resolver.recheck(s.mvId, s.snapshotId)) any = true;
    return any;
  }

  /** An MV's view_sql for the service role, with the derived tables it reads bound as `resolutions` says. */
  private async buildSql(mv: MvInfo, resolutions: ReadonlyMap<string, MvResolution>): Promise<string> {
    if (mv.engineSql === null) throw new ShoalError('MV_VIEW_SQL_INVALID', mv.error ?? `view_sql of MV ${mv.id} does not plan`, { where: `tables.${mv.table.table}.view_sql`, hint: 'fix the view_sql in the registry' });
    const { bindings } = await this.bindings(mv.sourceTables, async (u) => resolutions.get(u.id.toLowerCase()) ?? this.resolve(u.id));
    return bindMvRelations(mv.engineSql, bindings);
  }

  /** The CTE bindings that make relations over `reads` runnable (./derived-bindings.ts). */
  private bindings(reads: readonly string[], resolve: (mv: MvInfo) => Promise<MvResolution>): ReturnType<typeof derivedBindings> {
    return derivedBindings({ derived: this.derived, mvs: this.mvs, engine: this.options.engine }, reads, resolve);
  }
}
