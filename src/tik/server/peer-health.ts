/** How a replica's anti-entropy sees one peer (reported on `/health` as `peerStatus`). */
export interface PeerHealth {
  readonly url: string;
  /**
   * `ok` (last sync succeeded), `new` (not synced yet), `backoff` (unreachable, slow or refusing:
   * retried after `retryAt`), `quarantined` (it broke a sync limit or sent bad data: skipped until
   * `retryAt`, which doubles on every repeat).
   */
  readonly state: 'new' | 'ok' | 'backoff' | 'quarantined';
  /** Consecutive failed syncs. */
  readonly failures: number;
  readonly lastError?: { readonly code: string; readonly message: string };
  /** ISO instants. */
  readonly lastSyncAt?: string;
  readonly retryAt?: string;
  /** After the last good sync: whether the peer derives with the same roles register (its `/health` digest). */
  readonly roles?: { readonly verdict: 'same' | 'differs' | 'unknown'; readonly peer: string | null };
  /**
   * The peer refused this replica's last push attempt (its authorship policy: 401 our credential,
   * 403 what we pushed); the sync itself went on pulling. After a 401 the replica syncs pull-only
   * until `retryAt`. Cleared by a push the peer accepts.
   */
  readonly pushRefused?: { readonly code: string; readonly status: 401 | 403; readonly message: string; readonly at: string; readonly retryAt?: string };
  /** After the last good sync, under `--admit signed`: pulled events refused (the first `REFUSED_SHOWN`), not stored. */
  readonly refused?: readonly { readonly ticket: string; readonly id: string; readonly code: string; readonly message: string }[];
}

/** How many refused events a peer's status lists. */
export const REFUSED_SHOWN = 20;

/** Error codes that mean the peer misbehaved (quarantine), as opposed to being away (backoff). */
const MISBEHAVED = /^sync\/(peer-limit|bad-message|bad-bundle|refused|truncated|version|too-large|bad-id|bad-ticket|varint)$/;

/** The longest backoff and quarantine. */
const MAX_BACKOFF_MS = 5 * 60_000;
const MAX_QUARANTINE_MS = 60 * 60_000;

/** How long a peer that refused our credential (401) is synced pull-only: 30 intervals, 1 min to 1 h. */
export const pushRetryMs = (intervalMs: number): number => Math.min(MAX_QUARANTINE_MS, Math.max(60_000, 30 * intervalMs));

/** The next health of a peer after a sync ended with `code` (or succeeded, `code` undefined). */
export function nextPeerHealth(prev: PeerHealth, nowMs: number, intervalMs: number, error?: { code: string; message: string }): PeerHealth {
  const at = new Date(nowMs).toISOString();
  if (error === undefined) return { url: prev.url, state: 'ok', failures: 0, lastSyncAt: at, ...(prev.roles ? { roles: prev.roles } : {}) };
  const failures = prev.failures + 1;
  const quarantine = MISBEHAVED.test(error.code);
  // backoff: interval · 2^failures; quarantine starts at 30 intervals (at least a minute) and doubles.
  const wait = quarantine ? Math.min(MAX_QUARANTINE_MS, Math.max(60_000, 30 * intervalMs) * 2 ** (failures - 1)) : Math.min(MAX_BACKOFF_MS, intervalMs * 2 ** failures);
  return {
    url: prev.url,
    state: quarantine ? 'quarantined' : 'backoff',
    failures,
    lastError: error,
    ...(prev.lastSyncAt !== undefined ? { lastSyncAt: prev.lastSyncAt } : {}),
    ...(prev.roles ? { roles: prev.roles } : {}),
    ...(prev.pushRefused ? { pushRefused: prev.pushRefused } : {}),
    retryAt: new Date(nowMs + wait).toISOString(),
  };
}
