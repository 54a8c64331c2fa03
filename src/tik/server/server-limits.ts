import { LIMITS } from '../sync/bundle.js';
import { SYNC_LIMITS } from '../sync/limits.js';

/**
 * The connection hygiene of a `tik serve` replica (docs/tik-sync.md, "Limits"). Every socket and
 * request is bounded in time; the number of sockets, the bodies and the large transfers in
 * flight are bounded in count and bytes, so memory stays bounded whatever clients send.
 */
export interface ServerLimits {
  /** Until a request's headers are complete. */
  readonly headersTimeoutMs: number;
  /** Until a whole request (headers and body) is received. */
  readonly requestTimeoutMs: number;
  /** A socket with no traffic at all is closed after this. */
  readonly idleTimeoutMs: number;
  /** An idle keep-alive socket between requests. */
  readonly keepAliveTimeoutMs: number;
  /** Open sockets; past it the oldest socket without a request in flight is closed. */
  readonly maxSockets: number;
  /** A JSON API body: one largest event and room around it. */
  readonly apiBodyBytes: number;
  /** A sync push body or fetch answer (shared with the initiator's cap). */
  readonly bundleBytes: number;
  /** Fetch answers built at once, and how many may wait (pushes too); past that, 503. */
  readonly transfers: number;
  readonly transferQueue: number;
  /**
   * Pushes admitted at once (`--max-pushes`); a push holds at most one group of records in
   * memory (`SYNC_LIMITS.bundleBytes`), so pushes × that bounds their memory. Past it, and its
   * `transferQueue` waiters, 503 `sync/push-busy`.
   */
  readonly pushes: number;
  /** Reconciliation rounds one client address may drive per minute; past that, 429. */
  readonly reconcilePerMinute: number;
}

export const SERVER_LIMITS: ServerLimits = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 300_000,
  idleTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  maxSockets: 512,
  apiBodyBytes: LIMITS.event + (1 << 20),
  bundleBytes: SYNC_LIMITS.bundleBytes,
  transfers: 1,
  pushes: 1,
  transferQueue: 16,
  reconcilePerMinute: 3000,
});
