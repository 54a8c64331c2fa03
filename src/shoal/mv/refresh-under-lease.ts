/**
 * One coordinated refresh of a `shared` MV, in the order of federation-fleet.md §1.8/§1.10: seed,
 * claim for the versions, heartbeat every lease/3 while `build` writes an UNPUBLISHED snapshot,
 * then the fenced commit publishes it. The refresh executor supplies `build` (write the snapshot
 * under a fresh name, honour `signal`, return its id and row count) and `discard` (drop a snapshot
 * that was never published). Returns the admin API's outcome.
 */
import { isCodedError } from '../../core/errors.js';
import { type HeartbeatOptions, startHeartbeat } from '../../core/lease/index.js';
import { ShoalError } from '../errors.js';
import { type MvDefinition, type RefreshCatalog, type RefreshClaim, type RefreshVersions, ReconcileError, type SkipReason } from './refresh-catalog.js';

/** The code `build` throws (via `refuseRefresh`) when a guard refuses the refresh: size, quota, preflight. */
export const MV_REFRESH_REFUSED = 'MV_REFRESH_REFUSED';

/** An error for `build` to throw when a guard refuses: the MV is released and the outcome is `skipped`. */
export function refuseRefresh(reason: string, hint = 'the materialized view keeps its last published snapshot'): ShoalError {
  return new ShoalError(MV_REFRESH_REFUSED, reason, { hint });
}

export interface BuiltSnapshot {
  readonly snapshotId: string;
  readonly rowCount: number;
}

export interface RefreshWork {
  /** Write the snapshot completely, unpublished; stop early when `signal` aborts (lease lost). */
  build(claim: RefreshClaim, signal: AbortSignal): Promise<BuiltSnapshot>;
  /** Drop an unpublished snapshot (after a refused commit or a lost lease). */
  discard?(snapshotId: string): Promise<void>;
}

export type RefreshResult =
  | { readonly outcome: 'refreshed'; readonly snapshotId: string; readonly rowCount: number; readonly epoch: number }
  | { readonly outcome: 'skipped'; readonly reason: SkipReason; readonly holder: string | null }
  | { readonly outcome: 'skipped'; readonly reason: 'refused'; readonly detail: string; readonly epoch: number }
  | { readonly outcome: 'lost_lease'; readonly epoch: number }
  | { readonly outcome: 'failed'; readonly error: string; readonly epoch: number };

export interface RefreshRequest {
  readonly definition: MvDefinition;
  readonly writer: string;
  readonly versions: RefreshVersions;
  readonly traceId?: string;
  /** A manual refresh: skip the version and interval gates (a live lease still excludes). */
  readonly force?: boolean;
  readonly heartbeat?: HeartbeatOptions;
}

export async function refreshUnderLease(catalog: RefreshCatalog, request: RefreshRequest, work: RefreshWork): Promise<RefreshResult> {
  await catalog.seed(request.definition);
  let won: Awaited<ReturnType<RefreshCatalog['claim']>>;
  try {
    won = await catalog.claim(request.definition.id, request.writer, request.versions, {
      ...(request.traceId ? { traceId: request.traceId } : {}),
      ...(request.force ? { force: true } : {}),
    });
  } catch (e) {
    // the reconcile hook failed after a reclaim: the catalog already released and logged the claim
    if (e instanceof ReconcileError) return { outcome: 'failed', error: e.message, epoch: e.epoch };
    throw e;
  }
  if (!won.claimed) return { outcome: 'skipped', reason: won.reason, holder: won.holder };
  const claim = won.claim;
  const beat = startHeartbeat(catalog.lease, claim.grant, request.heartbeat);
  let built: BuiltSnapshot;
  try {
    built = await work.build(claim, beat.signal);
  } catch (e) {
    await beat.stop();
    if (beat.signal.aborted) {
      await catalog.recordLostLease(claim, 'heartbeat found the lease lost; refresh abandoned');
      return { outcome: 'lost_lease', epoch: claim.grant.epoch };
    }
    if (isCodedError(e) && e.code === MV_REFRESH_REFUSED) {
      await catalog.release(claim, { outcome: 'skipped', reason: e.message });
      return { outcome: 'skipped', reason: 'refused', detail: e.message, epoch: claim.grant.epoch };
    }
    const error = (e as Error).message;
    await catalog.release(claim, { error });
    return { outcome: 'failed', error, epoch: claim.grant.epoch };
  }
  await beat.stop();
  const current = { ...claim, grant: beat.current() };
  if (beat.signal.aborted) {
    await catalog.recordLostLease(current, 'heartbeat found the lease lost; snapshot not published');
    await work.discard?.(built.snapshotId);
    return { outcome: 'lost_lease', epoch: claim.grant.epoch };
  }
  const ok = await catalog.commit(current, built);
  if (!ok) {
    await work.discard?.(built.snapshotId);
    return { outcome: 'lost_lease', epoch: claim.grant.epoch };
  }
  return { outcome: 'refreshed', snapshotId: built.snapshotId, rowCount: built.rowCount, epoch: claim.grant.epoch };
}
