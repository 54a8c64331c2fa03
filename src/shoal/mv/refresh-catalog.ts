/**
 * The shared refresh catalog (law S3): one row per materialized view in the registry's database,
 * coordinated by the fenced lease of src/core/lease. Every instance runs the same protocol:
 *
 *   seed → claim(versions) → [heartbeat …] → build an unpublished snapshot → commit(snapshotId)
 *                                          ↘ release(error) on failure or refusal
 *
 * - `claim` is one conditional UPDATE on the database clock: it wins only if the MV is enabled,
 *   nobody holds a live lease, and the (definition version, input version) pair differs from the
 *   materialized one; with no input version (no usable signal) it wins when the definition changed
 *   or `refresh_interval` has elapsed since the last refresh. `force` skips both gates.
 * - `commit` is the fenced publish: it sets `snapshot_id`, the stamps, `status='fresh'` only while
 *   the claim's lease is held and unexpired (strictly). Readers resolve the MV through
 *   `snapshot_id`, so a refused commit publishes nothing.
 * - A claim that displaces an expired lease calls the `onReclaim` hook (reconcile with the store,
 *   collect the dead writer's unpublished artifacts) before the new holder starts.
 * - Every outcome (refreshed, skipped, lost_lease, failed, reclaimed) appends a `mv_refresh_log` row.
 */
import { type DbClock, FencedLease, LEASE_NOW, type LeaseGrant, type LeaseState, databaseClock } from '../../core/lease/index.js';
import type { SqlClient, SqlExecutor, SqlValue } from '../../core/sql/sql-client.js';
import { ShoalError } from '../errors.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { migrateRefreshCatalog } from './refresh-catalog-schema.js';

export type MvConsistency = 'shared' | 'distributed';
export type MvStatus = 'fresh' | 'stale' | 'refreshing' | 'disabled';
export type RefreshOutcome = 'refreshed' | 'skipped' | 'lost_lease' | 'failed' | 'reclaimed';

/** What registration knows about an MV (the seed row's definition columns). */
export interface MvDefinition {
  readonly id: string;
  readonly sourceTables: readonly string[];
  readonly targetCatalog?: string | null;
  readonly targetSchema?: string | null;
  readonly targetTable?: string | null;
  /** Seconds between refreshes (default 300). */
  readonly refreshInterval?: number;
  readonly enabled?: boolean;
  readonly consistency?: MvConsistency;
  readonly customSql?: string | null;
  readonly joinPattern?: Readonly<Record<string, unknown>> | null;
}

/** A catalog row as stored (times are epoch ms on the database clock). */
export interface MvRow {
  readonly id: string;
  readonly sourceTables: readonly string[];
  readonly targetCatalog: string | null;
  readonly targetSchema: string | null;
  readonly targetTable: string | null;
  readonly refreshInterval: number;
  readonly enabled: boolean;
  readonly consistency: MvConsistency;
  readonly customSql: string | null;
  readonly joinPattern: Readonly<Record<string, unknown>> | null;
  readonly status: MvStatus;
  readonly lastRefreshAtMs: number | null;
  readonly rowCount: number | null;
  readonly lastError: string | null;
  readonly materializedDefinitionVersion: string | null;
  readonly materializedInputVersion: string | null;
  readonly materializedInputVersionKind: string | null;
  /** The published snapshot every instance reads; null until the first successful commit. */
  readonly snapshotId: string | null;
  readonly writer: string | null;
  readonly leaseUntilMs: number | null;
  readonly leaseEpoch: number;
}

/** The version stamps a refresh is for (see ./version-stamps.ts). */
export interface RefreshVersions {
  readonly definitionVersion: string;
  /** Null when the inputs give no usable signal: no dedup, the MV refreshes by interval. */
  readonly inputVersion: string | null;
  readonly inputVersionKind?: string | null;
}

/** A won claim: present it to renew, commit and release. */
export interface RefreshClaim {
  readonly mvId: string;
  readonly grant: LeaseGrant;
  readonly versions: RefreshVersions;
  /** The database clock when the claim was granted (for the log's duration). */
  readonly claimedAtMs: number;
  readonly traceId: string | null;
}

/**
 * Why a claim was not won: no such row, disabled, a live lease holds it, these versions are already
 * materialized, or (no input signal) the refresh interval has not elapsed.
 */
export type SkipReason = 'missing' | 'disabled' | 'held' | 'up_to_date' | 'not_due';

export interface ClaimRequestOptions {
  readonly traceId?: string;
  /** Skip the version and interval gates (a manual refresh); a live lease still excludes. */
  readonly force?: boolean;
}

export type ClaimResult =
  | { readonly claimed: true; readonly claim: RefreshClaim }
  | { readonly claimed: false; readonly reason: SkipReason; readonly holder: string | null };

export interface ReclaimInfo {
  readonly mvId: string;
  /** The writer whose expired lease was displaced. */
  readonly previousWriter: string;
  /** The new claim (its epoch is the previous one + 1). */
  readonly claim: RefreshClaim;
  /** The row as it stands after the claim: `snapshotId` is still the last committed snapshot. */
  readonly row: MvRow;
}

/** The reconcile hook failed after a reclaim; the claim was released (and logged) as failed. */
export class ReconcileError extends ShoalError {
  constructor(
    message: string,
    readonly epoch: number,
    cause: unknown,
  ) {
    super('MV_RECONCILE_FAILED', message, { hint: 'check the materialization store; the next claim retries the reconcile', cause });
  }
}

export interface RefreshCatalogOptions {
  /** Lease length in ms (default 120 s). */
  readonly leaseMs?: number;
  /** Database clock (default the server's); tests inject a clock table. */
  readonly clock?: DbClock;
  /**
   * Reconcile after reclaiming an expired lease: the row's `snapshot_id` is authoritative (only a
   * fenced commit writes it), so this is where the store drops the dead writer's unpublished
   * snapshot or staging table. A throw releases the claim as `failed`.
   */
  readonly onReclaim?: (info: ReclaimInfo) => Promise<void>;
}

export interface RefreshLogEntry {
  readonly id: number;
  readonly mvId: string;
  readonly outcome: RefreshOutcome;
  readonly reason: string | null;
  readonly writer: string | null;
  readonly leaseEpoch: number | null;
  readonly rowCount: number | null;
  readonly durationMs: number | null;
  readonly error: string | null;
  readonly definitionVersion: string | null;
  readonly inputVersion: string | null;
  readonly inputVersionKind: string | null;
  readonly snapshotId: string | null;
  readonly traceId: string | null;
  readonly createdAtMs: number;
}

export interface CommitInput {
  readonly rowCount: number;
  /** The snapshot to publish (already written completely, under its own fresh name). */
  readonly snapshotId: string;
  /** Run the commit (and its log row) in the caller's transaction. */
  readonly executor?: SqlExecutor;
}

export interface ReleaseInput {
  /** `failed` (default) for errors, `skipped` for guards that refused (size, quota, preflight). */
  readonly outcome?: 'failed' | 'skipped';
  readonly error?: string | null;
  readonly reason?: string | null;
}

export class RefreshCatalog {
  /** The lease over `materialized_views` rows, for a heartbeat (`startHeartbeat(catalog.lease, claim.grant)`). */
  readonly lease: FencedLease;
  private readonly clock: DbClock;

  private constructor(
    private readonly db: SqlClient,
    private readonly options: RefreshCatalogOptions,
  ) {
    this.clock = options.clock ?? databaseClock;
    this.lease = new FencedLease(db, { table: 'materialized_views', keyColumn: 'id' }, { clock: this.clock, ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}) });
  }

  /** Open the catalog on a registry database, creating its tables if missing. */
  static async open(db: SqlClient, options: RefreshCatalogOptions = {}): Promise<RefreshCatalog> {
    await migrateRefreshCatalog(db);
    return new RefreshCatalog(db, options);
  }

  /**
   * Insert the MV's row if it does not exist (idempotent: a peer may have seeded it; an existing row,
   * its lease and its snapshot are never touched). True when this call inserted it.
   */
  async seed(def: MvDefinition): Promise<boolean> {
    const now = this.clock.sql(this.db.dialect);
    const r = await this.db.run(
      `INSERT INTO materialized_views (id, source_tables, target_catalog, target_schema, target_table, refresh_interval, enabled,
         consistency, custom_sql, join_pattern, status, created_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'stale', ${now}) ON CONFLICT (id) DO NOTHING`,
      [
        def.id,
        JSON.stringify([...def.sourceTables]),
        def.targetCatalog ?? null,
        def.targetSchema ?? null,
        def.targetTable ?? null,
        def.refreshInterval ?? 300,
        def.enabled ?? true,
        def.consistency ?? 'shared',
        def.customSql ?? null,
        def.joinPattern ? canonicalJson(def.joinPattern) : null,
      ],
    );
    return r.rowCount === 1;
  }

  async get(id: string): Promise<MvRow | null> {
    const rows = await this.db.query(`SELECT * FROM materialized_views WHERE id = ?`, [id]);
    return rows[0] ? toRow(rows[0]) : null;
  }

  async list(): Promise<MvRow[]> {
    return (await this.db.query(`SELECT * FROM materialized_views ORDER BY id`)).map(toRow);
  }

  /**
   * Enabled MVs whose interval has elapsed on the database clock (or that were never refreshed)
   * and that no live lease holds: what a scheduling loop should try to claim. Being due is only a
   * hint; the claim decides, and dedups on versions.
   */
  async due(): Promise<MvRow[]> {
    const now = this.clock.sql(this.db.dialect);
    const rows = await this.db.query(
      `SELECT * FROM materialized_views WHERE enabled = ?
         AND (last_refresh_at_ms IS NULL OR last_refresh_at_ms + refresh_interval * 1000 <= ${now})
         AND (writer IS NULL OR lease_until_ms IS NULL OR lease_until_ms <= ${now})
       ORDER BY id`,
      [true],
    );
    return rows.map(toRow);
  }

  /** The MV's lease as the database sees it now (holder, epoch, end, and whether it is live). */
  async leaseState(id: string): Promise<LeaseState | null> {
    return this.lease.state(id);
  }

  /** Try to become the MV's single writer for these versions (and log a skip when not). */
  async claim(id: string, writer: string, versions: RefreshVersions, options: ClaimRequestOptions = {}): Promise<ClaimResult> {
    const params: SqlValue[] = [true];
    let condition = 'enabled = ?';
    const gated = !options.force;
    if (gated && versions.inputVersion !== null) {
      condition += ' AND (materialized_definition_version IS DISTINCT FROM ? OR materialized_input_version IS DISTINCT FROM ?)';
      params.push(versions.definitionVersion, versions.inputVersion);
    } else if (gated) {
      // no input signal: the interval (or a definition change) decides, so N instances still do one refresh per interval
      const now = this.clock.sql(this.db.dialect);
      condition += ` AND (materialized_definition_version IS DISTINCT FROM ? OR last_refresh_at_ms IS NULL OR last_refresh_at_ms + refresh_interval * 1000 <= ${now})`;
      params.push(versions.definitionVersion);
    }
    const grant = await this.lease.claim(id, writer, {
      condition: { sql: condition, params },
      set: { status: 'refreshing' },
    });
    const traceId = options.traceId ?? null;
    if (!grant) {
      const row = await this.get(id);
      const reason: SkipReason = !row
        ? 'missing'
        : !row.enabled
          ? 'disabled'
          : row.writer !== null && (await this.lease.state(id))?.live
            ? 'held'
            : versions.inputVersion === null
              ? 'not_due'
              : 'up_to_date';
      if (row) {
        await this.appendLog(this.db, { mvId: id, outcome: 'skipped', reason, writer, versions, traceId, holder: row.writer });
      }
      return { claimed: false, reason, holder: row?.writer ?? null };
    }
    const claim: RefreshClaim = { mvId: id, grant, versions, claimedAtMs: grant.untilMs - this.lease.leaseMs, traceId };
    if (grant.reclaimedFrom !== null) {
      await this.appendLog(this.db, {
        mvId: id,
        outcome: 'reclaimed',
        reason: `expired lease of ${grant.reclaimedFrom} (epoch ${grant.epoch - 1}) reclaimed`,
        writer,
        epoch: grant.epoch,
        versions,
        traceId,
      });
      if (this.options.onReclaim) {
        try {
          const row = (await this.get(id))!;
          await this.options.onReclaim({ mvId: id, previousWriter: grant.reclaimedFrom, claim, row });
        } catch (e) {
          const message = `reconcile after reclaiming ${grant.reclaimedFrom}'s expired lease failed: ${(e as Error).message}`;
          await this.release(claim, { error: message });
          throw new ReconcileError(message, grant.epoch, e);
        }
      }
    }
    return { claimed: true, claim };
  }

  /** Heartbeat: extend the claim's lease; null means it was lost (abort the refresh). */
  async renew(claim: RefreshClaim): Promise<RefreshClaim | null> {
    const grant = await this.lease.renew(claim.grant);
    return grant ? { ...claim, grant } : null;
  }

  /**
   * The fenced commit: publish `snapshotId` with the claim's stamps, only while the lease is held and
   * unexpired. False means the lease was lost: nothing is published and the snapshot must be
   * discarded. Logs `refreshed` or `lost_lease` in the same transaction.
   */
  async commit(claim: RefreshClaim, input: CommitInput): Promise<boolean> {
    const work = async (tx: SqlExecutor): Promise<boolean> => {
      const ok = await this.lease.commit(claim.grant, {
        executor: tx,
        set: {
          status: 'fresh',
          last_refresh_at_ms: LEASE_NOW,
          row_count: input.rowCount,
          last_error: null,
          materialized_definition_version: claim.versions.definitionVersion,
          materialized_input_version: claim.versions.inputVersion,
          materialized_input_version_kind: claim.versions.inputVersionKind ?? null,
          snapshot_id: input.snapshotId,
        },
      });
      await this.appendLog(tx, {
        mvId: claim.mvId,
        outcome: ok ? 'refreshed' : 'lost_lease',
        reason: ok ? null : 'commit refused: the lease expired or was taken over',
        writer: claim.grant.writer,
        epoch: claim.grant.epoch,
        versions: claim.versions,
        traceId: claim.traceId,
        rowCount: input.rowCount,
        snapshotId: input.snapshotId,
        claimedAtMs: claim.claimedAtMs,
      });
      return ok;
    };
    return input.executor ? work(input.executor) : this.db.transaction(work);
  }

  /**
   * Give the MV back after a failure (or a guard's refusal): status `stale`, `last_error` set, lease
   * cleared; fenced on writer and epoch, so it is a no-op once someone else holds the row.
   */
  async release(claim: RefreshClaim, input: ReleaseInput = {}): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const ok = await this.lease.release(claim.grant, { executor: tx, set: { status: 'stale', last_error: input.error ?? input.reason ?? null } });
      await this.appendLog(tx, {
        mvId: claim.mvId,
        outcome: input.outcome ?? 'failed',
        reason: input.reason ?? null,
        error: input.error ?? null,
        writer: claim.grant.writer,
        epoch: claim.grant.epoch,
        versions: claim.versions,
        traceId: claim.traceId,
        claimedAtMs: claim.claimedAtMs,
      });
      return ok;
    });
  }

  /** Log that a heartbeat found the lease lost and the refresh was abandoned. */
  async recordLostLease(claim: RefreshClaim, reason: string): Promise<void> {
    await this.appendLog(this.db, {
      mvId: claim.mvId,
      outcome: 'lost_lease',
      reason,
      writer: claim.grant.writer,
      epoch: claim.grant.epoch,
      versions: claim.versions,
      traceId: claim.traceId,
      claimedAtMs: claim.claimedAtMs,
    });
  }

  /** The MV's refresh log, newest first. */
  async log(id: string, options: { limit?: number } = {}): Promise<RefreshLogEntry[]> {
    const rows = await this.db.query(`SELECT * FROM mv_refresh_log WHERE mv_id = ? ORDER BY id DESC LIMIT ?`, [id, options.limit ?? 100]);
    return rows.map(toLogEntry);
  }

  /**
   * The MV's last finished refresh attempt (`refreshed`, `failed` or `lost_lease`; skips and
   * reclaims are not attempts), with its duration on the database clock; null when none.
   */
  async lastFinished(id: string): Promise<RefreshLogEntry | null> {
    const rows = await this.db.query(
      `SELECT * FROM mv_refresh_log WHERE mv_id = ? AND outcome IN ('refreshed', 'failed', 'lost_lease') ORDER BY id DESC LIMIT 1`,
      [id],
    );
    return rows[0] ? toLogEntry(rows[0]) : null;
  }

  private async appendLog(db: SqlExecutor, e: LogInput): Promise<void> {
    const now = this.clock.sql(db.dialect);
    const duration = e.claimedAtMs === undefined ? 'NULL' : `${now} - ?`;
    await db.run(
      `INSERT INTO mv_refresh_log (mv_id, outcome, reason, writer, lease_epoch, row_count, duration_ms, error, definition_version,
         input_version, input_version_kind, snapshot_id, trace_id, created_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ${duration}, ?, ?, ?, ?, ?, ?, ${now})`,
      [
        e.mvId,
        e.outcome,
        e.reason ?? (e.holder ? `held by ${e.holder}` : null),
        e.writer,
        e.epoch ?? null,
        e.rowCount ?? null,
        ...(e.claimedAtMs === undefined ? [] : [e.claimedAtMs]),
        e.error ?? null,
        e.versions.definitionVersion,
        e.versions.inputVersion,
        e.versions.inputVersionKind ?? null,
        e.snapshotId ?? null,
        e.traceId,
      ],
    );
  }
}

interface LogInput {
  readonly mvId: string;
  readonly outcome: RefreshOutcome;
  readonly reason?: string | null;
  readonly error?: string | null;
  readonly writer: string;
  readonly epoch?: number;
  readonly versions: RefreshVersions;
  readonly traceId: string | null;
  readonly rowCount?: number;
  readonly snapshotId?: string;
  readonly claimedAtMs?: number;
  readonly holder?: string | null;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const bool = (v: unknown): boolean => v === true || v === 1 || v === '1' || v === 't';

function toRow(r: Record<string, unknown>): MvRow {
  return {
    id: String(r.id),
    sourceTables: parseJson<string[]>(r.source_tables, 'source_tables') ?? [],
    targetCatalog: str(r.target_catalog),
    targetSchema: str(r.target_schema),
    targetTable: str(r.target_table),
    refreshInterval: Number(r.refresh_interval),
    enabled: bool(r.enabled),
    consistency: r.consistency as MvConsistency,
    customSql: str(r.custom_sql),
    joinPattern: parseJson<Record<string, unknown>>(r.join_pattern, 'join_pattern'),
    status: r.status as MvStatus,
    lastRefreshAtMs: num(r.last_refresh_at_ms),
    rowCount: num(r.row_count),
    lastError: str(r.last_error),
    materializedDefinitionVersion: str(r.materialized_definition_version),
    materializedInputVersion: str(r.materialized_input_version),
    materializedInputVersionKind: str(r.materialized_input_version_kind),
    snapshotId: str(r.snapshot_id),
    writer: str(r.writer),
    leaseUntilMs: num(r.lease_until_ms),
    leaseEpoch: Number(r.lease_epoch),
  };
}

function toLogEntry(r: Record<string, unknown>): RefreshLogEntry {
  return {
    id: Number(r.id),
    mvId: String(r.mv_id),
    outcome: r.outcome as RefreshOutcome,
    reason: str(r.reason),
    writer: str(r.writer),
    leaseEpoch: num(r.lease_epoch),
    rowCount: num(r.row_count),
    durationMs: num(r.duration_ms),
    error: str(r.error),
    definitionVersion: str(r.definition_version),
    inputVersion: str(r.input_version),
    inputVersionKind: str(r.input_version_kind),
    snapshotId: str(r.snapshot_id),
    traceId: str(r.trace_id),
    createdAtMs: Number(r.created_at_ms),
  };
}

function parseJson<T>(v: unknown, column: string): T | null {
  if (v === null || v === undefined) return null;
  try {
    return JSON.parse(String(v)) as T;
  } catch (e) {
    throw new ShoalError('MV_CATALOG_CORRUPT', `materialized_views.${column} is not valid JSON`, {
      hint: 'the row was written by something other than shoal; re-register the MV',
      cause: e,
    });
  }
}
