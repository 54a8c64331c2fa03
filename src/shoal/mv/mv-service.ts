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
 * `distributed` MVs skip the catalog: each instance materializes them into its OWN scratch store
 * (`localStore`), comparing the input version before and after; when the inputs moved meanwhile it
 * retries, and after `quiescenceRetries` reports the source as not quiescent (`onNotQuiescent`, a
 * `not_quiescent` event, the `notQuiescent` counters) and keeps serving what it had, rather than a
 * copy no peer agrees with.
 */
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { HeartbeatOptions } from '../../core/lease/index.js';
import type { SqlClient } from '../../core/sql/sql-client.js';
import type { CatalogModel, TableConfig } from '../config/model.js';
import { qualifiedName } from '../config/model.js';
import type { Engine } from '../engine/engine.js';
import { ShoalError } from '../errors.js';
import { planQuery, type GovernanceCatalog } from '../sql/index.js';
import { cycleError, mvDepth, planDerivedTables, type DerivedTable } from './derived-graph.js';
import { materialize } from './materialize.js';
import { TIK_LOG_TABLES, tikStoreDigest } from './tik-store-digest.js';
import { SERVICE_ROLE_ID, serviceCatalog } from './service-identity.js';
import { bindMvRelations, engineNameWithMvs, mvRelationName, snapshotBody, snapshotRelation, type MvBinding } from './mv-relation.js';
import { MvResolver, type MvResolution } from './mv-resolver.js';
import { RefreshCatalog, type MvDefinition, type MvRow, type RefreshLogEntry, type RefreshVersions } from './refresh-catalog.js';
import { refreshUnderLease, type RefreshResult } from './refresh-under-lease.js';
import { DEFAULT_GC_GRACE_MS, type GcReport, type SnapshotStore } from './snapshot-store.js';
import {
  definitionVersion,
  gatherInputSignals,
  inputToken,
  inputTokenKind,
  mvSnapshotSignal,
  type InputProbes,
  type InputSignal,
  type InputSource,
} from './version-stamps.js';

/** A registered MV as this instance knows it (from the last synced catalog). */
export interface MvInfo {
  readonly id: string;
  readonly table: TableConfig;
  readonly relation: string;
  /** view_sql planned for the service role, as engine SQL; null when it does not plan (see `error`). */
  readonly engineSql: string | null;
  readonly error: string | null;
  /** Keys (`<domain>.<table>`) of the registered tables view_sql reads. */
  readonly sourceTables: readonly string[];
  readonly definition: MvDefinition;
}

/**
 * Where a running refresh is: reading its input versions, claiming the lease (shared), streaming
 * the view's rows (`rowsWritten` grows), writing the Parquet snapshot, checking that the inputs did
 * not move (distributed), or publishing it by the fenced commit (shared).
 */
export type RefreshPhase = 'versions' | 'claiming' | 'materializing' | 'writing_snapshot' | 'checking_inputs' | 'committing';

/** A refresh running on this instance (the admin API shows progress and timing). */
export interface RunningRefresh {
  readonly mvId: string;
  readonly consistency: 'shared' | 'distributed';
  /** This instance's writer, with `#<lease epoch>` once a shared refresh holds the lease. */
  readonly writer: string;
  readonly phase: RefreshPhase;
  /** Materialization attempt (a distributed MV retries when its inputs moved), from 1. */
  readonly attempt: number;
  readonly startedAtMs: number;
  readonly elapsedMs: number;
  readonly rowsWritten: number;
  readonly snapshotId: string | null;
}

/** The last refresh of a distributed MV on this instance (it has no refresh log). */
export interface LocalRefreshReport {
  readonly outcome: RefreshResult['outcome'];
  readonly snapshotId: string | null;
  readonly rowCount: number | null;
  readonly error: string | null;
  readonly attempts: number;
  readonly startedAtMs: number;
  readonly durationMs: number;
}

/** An MV's last finished refresh attempt, as the admin API reports it. */
export interface LastRefresh {
  readonly outcome: string;
  readonly snapshotId: string | null;
  readonly rowCount: number | null;
  readonly error: string | null;
  readonly writer: string | null;
  readonly finishedAtMs: number;
  readonly durationMs: number | null;
  /** Distributed MVs: materializations it took (retries when the inputs moved). */
  readonly attempts?: number;
}

/**
 * What the service tells observers (the /metrics series): each refresh attempt's outcome and
 * wall time on this instance, and each time a distributed MV's source was not quiescent.
 */
export type MvEvent =
  | { readonly kind: 'refresh_started'; readonly mvId: string }
  | {
      readonly kind: 'refresh_finished';
      readonly mvId: string;
      readonly consistency: 'shared' | 'distributed';
      /** The result's outcome, or `error` when the refresh threw (catalog unreachable, …). */
      readonly outcome: RefreshResult['outcome'] | 'error';
      readonly durationMs: number;
    }
  | { readonly kind: 'not_quiescent'; readonly mvId: string }
  /** A published snapshot failed to read: moved aside, served live, rebuilt. */
  | { readonly kind: 'snapshot_quarantined'; readonly mvId: string; readonly snapshotId: string };

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

/** A distributed MV's materialization on this instance. */
interface LocalSnapshot {
  readonly snapshotId: string;
  readonly path: string;
  readonly versions: RefreshVersions;
  readonly atMs: number;
}

export interface BoundQuery {
  readonly sql: string;
  /** `x-shoal-mv`: `<mv>=snapshot:<id>` or `<mv>=live`, comma-separated. */
  readonly headers: Readonly<Record<string, string>>;
  /** The shared snapshots bound (what `recheck` re-reads when the query fails). */
  readonly snapshots?: readonly { readonly mvId: string; readonly snapshotId: string }[];
}

/** A running refresh's mutable progress record (only `running()` reads it, as a copy). */
interface Progress {
  readonly consistency: 'shared' | 'distributed';
  phase: RefreshPhase;
  attempt: number;
  readonly startedAtMs: number;
  rows: number;
  snapshotId: string | null;
  writer: string;
}

const FILE_TYPES = new Set(['csv', 'parquet', 'json']);

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
  private readonly inFlight = new Map<string, Progress>();
  private readonly now: () => number;
  private readonly local = new Map<string, LocalSnapshot>();
  private readonly lastLocal = new Map<string, LocalRefreshReport>();
  private readonly observers = new Set<(e: MvEvent) => void>();
  private notQuiescentCount = 0;
  private readonly notQuiescentByMv = new Map<string, number>();

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
    for (const id of [...this.local.keys()]) if (next.get(id.toLowerCase())?.table.mv_consistency !== 'distributed') this.local.delete(id);
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
      const l = this.lastLocal.get(mv.id);
      return l ? { ...l, writer: this.writer, finishedAtMs: l.startedAtMs + l.durationMs } : null;
    }
    const e = await this.catalog.lastFinished(mv?.id ?? id);
    if (!e) return null;
    return { outcome: e.outcome, snapshotId: e.snapshotId, rowCount: e.rowCount, error: e.error ?? e.reason, writer: e.writer, finishedAtMs: e.createdAtMs, durationMs: e.durationMs };
  }

  /** The refreshes running on this instance now, with their phase, progress and timing. */
  running(): RunningRefresh[] {
    const now = this.now();
    return [...this.inFlight.entries()].map(([mvId, r]) => ({
      mvId,
      consistency: r.consistency,
      writer: r.writer,
      phase: r.phase,
      attempt: r.attempt,
      startedAtMs: r.startedAtMs,
      elapsedMs: now - r.startedAtMs,
      rowsWritten: r.rows,
      snapshotId: r.snapshotId,
    }));
  }

  /** The last finished refresh of a distributed MV on this instance (null: none yet, or shared). */
  lastLocalRefresh(id: string): LocalRefreshReport | null {
    return this.lastLocal.get(this.info(id)?.id ?? id) ?? null;
  }

  /** Follow refresh outcomes and quiescence reports (returns the unsubscribe). */
  observe(listener: (e: MvEvent) => void): () => void {
    this.observers.add(listener);
    return () => void this.observers.delete(listener);
  }

  private emit(e: MvEvent): void {
    for (const l of this.observers) {
      try {
        l(e);
      } catch {
        // an observer's failure (metrics) never fails a refresh
      }
    }
  }

  /** Counters for the admin API: not-quiescent reports (in all and per MV) and local copies held. */
  stats(): { readonly notQuiescent: number; readonly notQuiescentByMv: Readonly<Record<string, number>>; readonly localSnapshots: number } {
    return { notQuiescent: this.notQuiescentCount, notQuiescentByMv: Object.fromEntries(this.notQuiescentByMv), localSnapshots: this.local.size };
  }

  /** The versions a refresh of this MV would be for, now. */
  async versions(mv: MvInfo): Promise<RefreshVersions> {
    return (await this.inputs(mv)).versions;
  }

  /**
   * What a refresh of this MV reads, now: its version stamps, and the resolution of every MV it
   * reads (the same ones the build binds, so the stamps describe exactly what was computed). An MV
   * read through its snapshot contributes the snapshot id (`mv_snapshot`); a derived view, or an MV
   * without a snapshot yet, is computed inline: its view_sql joins the definition and its own
   * inputs join the inputs.
   */
  private async inputs(mv: MvInfo): Promise<{ readonly versions: RefreshVersions; readonly resolutions: ReadonlyMap<string, MvResolution> }> {
    const model = this.model!;
    const resolutions = new Map<string, MvResolution>();
    const inlined: Record<string, string> = {};
    const sources: InputSource[] = [];
    const mvSignals = new Map<string, InputSignal>();
    const keys = new Set<string>();
    const walk = async (reads: readonly string[], path: ReadonlySet<string>): Promise<void> => {
      for (const key of reads) {
        if (path.has(key) || keys.has(key) || inlined[key] !== undefined) continue;
        const d = this.derived.get(key);
        if (d?.materialized) {
          const r = await this.resolveFresh(d.id);
          resolutions.set(d.id.toLowerCase(), r);
          if (r.kind === 'snapshot') {
            mvSignals.set(key, mvSnapshotSignal(r.snapshotId));
            keys.add(key);
            continue;
          }
        }
        if (d) {
          inlined[key] = d.table.view_sql ?? '';
          await walk(d.reads, new Set([...path, key]));
          continue;
        }
        keys.add(key);
        sources.push(this.inputSource(model, key));
      }
    };
    await walk(mv.sourceTables, new Set([mv.id.toLowerCase()]));
    const probes: InputProbes = {
      fileStat: async (path) => {
        const s = await stat(path);
        return { size: s.size, mtimeMs: s.mtimeMs };
      },
      maxWatermark: async (table, column) => this.maxOf(table, column),
      tikStoreDigest,
    };
    const signals = new Map([...(await gatherInputSignals(sources, probes)), ...mvSignals]);
    const inputKeys = [...keys];
    const versions: RefreshVersions = {
      definitionVersion: definitionVersion({ sql: mv.table.view_sql ?? null, sourceTables: mv.sourceTables, inlined }),
      inputVersion: inputToken(signals, inputKeys),
      inputVersionKind: inputTokenKind(signals, inputKeys),
    };
    return { versions, resolutions };
  }

  private inputSource(model: CatalogModel, key: string): InputSource {
    const t = model.tables.find((x) => qualifiedName(x).toLowerCase() === key);
    const src = t && model.sources.find((s) => s.id === t.source_id);
    if (t && src && FILE_TYPES.has(src.type.toLowerCase()) && src.path) return { table: key, kind: 'file', path: filePath(src.path, t.table, src.type.toLowerCase()) };
    if (t && src && src.type === 'tik' && src.path && TIK_LOG_TABLES.has(t.table.toLowerCase())) return { table: key, kind: 'tik_store', root: src.path };
    if (t && t.watermark_column) return { table: key, kind: 'table', watermarkColumn: t.watermark_column };
    return { table: key, kind: 'none' };
  }

  /** An MV's resolution straight from the catalog (not the reader cache): a refresh stamps what it reads. */
  private resolveFresh(id: string): Promise<MvResolution> {
    const mv = this.info(id);
    if (mv && mv.table.mv_consistency === 'shared') this.resolver.invalidate(mv.id);
    return this.resolve(id);
  }

  private async maxOf(tableKey: string, column: string): Promise<unknown> {
    const sql = planQuery({ sql: `SELECT max("${column.replace(/"/g, '""')}") AS m FROM ${tableKey}`, role: SERVICE_ROLE_ID }, this.service!, { route: 'engine', engine: this.options.engine.name }).sql;
    for await (const batch of this.options.engine.execute(sql)) return batch.rows[0]?.[0] ?? null;
    return null;
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
    const progress: Progress = { consistency, phase: 'versions', attempt: 1, startedAtMs: this.now(), rows: 0, snapshotId: null, writer: this.writer };
    // a second refresh of the same MV here (admin and loop at once) keeps the first one's entry
    const tracked = !this.inFlight.has(mv.id);
    if (tracked) this.inFlight.set(mv.id, progress);
    this.emit({ kind: 'refresh_started', mvId: mv.id });
    let outcome: RefreshResult['outcome'] | 'error' = 'error';
    try {
      const result = consistency === 'shared' ? await this.refreshShared(mv, progress, options) : await this.refreshLocal(mv, progress, options.force ?? false);
      outcome = result.outcome;
      return result;
    } finally {
      if (tracked && this.inFlight.get(mv.id) === progress) this.inFlight.delete(mv.id);
      this.emit({ kind: 'refresh_finished', mvId: mv.id, consistency, outcome, durationMs: this.now() - progress.startedAtMs });
    }
  }

  private async refreshShared(mv: MvInfo, progress: Progress, options: { force?: boolean; traceId?: string }): Promise<RefreshResult> {
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
   * Materialize a distributed MV into this instance's scratch store, without the catalog. The input
   * version is compared before and after: equal means the copy is of one quiescent input version
   * (what every peer converges on); different means retry, and finally report not quiescent.
   */
  private async refreshLocal(mv: MvInfo, progress: Progress, force: boolean): Promise<RefreshResult> {
    const store = this.options.localStore;
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
        durationMs: this.now() - progress.startedAtMs,
      });
      return result;
    };
    if (mv.engineSql === null) return finish({ outcome: 'failed', error: mv.error ?? 'view_sql does not plan', epoch: 0 });
    let before = await this.inputs(mv);
    const held = this.local.get(mv.id);
    if (!force && held && !this.localDue(held, before.versions, mv)) return { outcome: 'skipped', reason: 'up_to_date', holder: null };
    const retries = this.options.quiescenceRetries ?? 2;
    for (let attempt = 0; attempt <= retries; attempt++) {
      const snapshotId = store.newSnapshotId(mv.id);
      Object.assign(progress, { phase: 'materializing', attempt: attempt + 1, rows: 0, snapshotId });
      let built;
      try {
        built = await materialize({
          table: mv.table,
          serviceCatalog: this.service!,
          engine: this.options.engine,
          store,
          snapshotId,
          sql: await this.buildSql(mv, before.resolutions),
          onProgress: (rows) => (progress.rows = rows),
          onWriting: () => (progress.phase = 'writing_snapshot'),
        });
        await this.options.afterLocalBuild?.(mv.id, attempt);
      } catch (e) {
        await store.discard(snapshotId).catch(() => undefined);
        return finish({ outcome: 'failed', error: (e as Error).message, epoch: 0 });
      }
      progress.phase = 'checking_inputs';
      const after = await this.inputs(mv);
      if (after.versions.definitionVersion === before.versions.definitionVersion && after.versions.inputVersion === before.versions.inputVersion) {
        this.local.set(mv.id, { snapshotId, path: built.path, versions: after.versions, atMs: this.now() });
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
    this.emit({ kind: 'not_quiescent', mvId: mv.id });
    this.options.onNotQuiescent?.(error);
    return finish({ outcome: 'failed', error: error.message, epoch: 0 });
  }

  private localDue(held: LocalSnapshot, now: RefreshVersions, mv: MvInfo): boolean {
    if (held.versions.definitionVersion !== now.definitionVersion) return true;
    if (now.inputVersion !== null) return held.versions.inputVersion !== now.inputVersion;
    return this.now() - held.atMs >= mv.table.mv_refresh_interval * 1000;
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
        const held = this.local.get(mv.id);
        if (this.options.localStore && (!held || this.localDue(held, await this.versions(mv), mv))) out.push(mv.id);
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
    await this.options.localStore?.collectGarbage({ referenced: new Set([...this.local.values()].map((l) => l.snapshotId)), ...grace });
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
    this.emit({ kind: 'snapshot_quarantined', mvId, snapshotId });
    void this.refresh(mvId, { force: true }).catch((e: unknown) => this.options.onSnapshotUnreadable?.(e instanceof ShoalError ? e : new ShoalError('MV_REFRESH_FAILED', `MV ${mvId}: rebuilding a quarantined snapshot failed: ${(e as Error).message}`, { cause: e })));
  }

  /** What an MV resolves to for a reader now (cached ≤ the resolver's max age). */
  resolve(id: string): Promise<MvResolution> {
    const mv = this.info(id);
    if (mv && mv.table.mv_consistency !== 'shared') {
      const held = this.local.get(mv.id);
      return Promise.resolve(held ? { kind: 'snapshot', snapshotId: held.snapshotId, path: held.path } : { kind: 'live', reason: 'never_materialized' });
    }
    return this.resolver.resolve(mv?.id ?? id);
  }

  /**
   * Bind the derived tables a governed plan reads (its `tables` keys): each MV to its snapshot or,
   * with none, to its view_sql live; each derived view to its view_sql, always live; and, for what
   * runs live, whatever it reads in turn.
   */
  async bind(plan: { readonly sql: string; readonly tables: readonly string[] }): Promise<BoundQuery> {
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

  /**
   * The CTE bindings that make relations over `reads` runnable, dependencies first: an MV bound to
   * its resolution (a snapshot, or its view_sql live), a derived view to its view_sql. `notes` are
   * the `x-shoal-mv` entries of every MV bound.
   */
  private async bindings(reads: readonly string[], resolve: (mv: MvInfo) => Promise<MvResolution>): Promise<{ bindings: MvBinding[]; notes: string[] }> {
    const bindings: MvBinding[] = [];
    const notes: string[] = [];
    const done = new Set<string>();
    const visit = async (key: string, path: readonly string[]): Promise<void> => {
      const d = this.derived.get(key);
      if (!d || done.has(key)) return;
      if (path.includes(key)) throw cycleError([...path.slice(path.indexOf(key)), key]);
      const mv = d.materialized ? this.mvs.get(key) : undefined;
      if (mv) {
        const r = await resolve(mv);
        if (r.kind === 'snapshot') {
          bindings.push({ relation: mv.relation, body: (await this.options.engine.snapshots?.body(r.path)) ?? snapshotBody(r.path) });
          notes.push(`${mv.id}=${mv.table.mv_consistency === 'shared' ? 'snapshot' : 'local'}:${r.snapshotId}`);
          done.add(key);
          return;
        }
      }
      if (d.engineSql === null) {
        throw new ShoalError(
          'MV_VIEW_SQL_INVALID',
          mv ? `MV ${d.id} has never been materialized and its view_sql cannot run: ${d.error ?? 'unplannable'}` : `view ${d.id} cannot run: ${d.error ?? 'unplannable'}`,
          { where: `tables.${d.table.table}.view_sql`, hint: 'fix the view_sql in the registry' },
        );
      }
      for (const next of d.reads) await visit(next, [...path, key]);
      bindings.push({ relation: engineNameWithMvs(d.table)[0]!, body: d.engineSql });
      if (mv) notes.push(`${mv.id}=live`);
      done.add(key);
    };
    for (const key of new Set(reads)) await visit(key.toLowerCase(), []);
    return { bindings, notes };
  }
}

function filePath(path: string, table: string, type: string): string {
  // a source path is the file itself, or a directory of <table>.<ext> files (as the engine reads it)
  try {
    return statSync(path).isDirectory() ? join(path, `${table}.${type}`) : path;
  } catch {
    return path; // missing: the probe fails and the table gives no signal
  }
}
