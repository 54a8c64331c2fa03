import { LIMITS } from './bundle.js';

/**
 * The bounds every sync peer is held to, on both sides of the wire (docs/tik-sync.md, "Limits").
 * A peer that exceeds one is cut off with a `sync/peer-limit` error; nothing it sent past the
 * bound is read.
 */
export const SYNC_LIMITS = Object.freeze({
  /**
   * The largest bundle body, a push request or a fetch answer: one largest blob with its attach
   * event, and room for one more largest event. Shared by the HTTP body limit, the responder's
   * fetch answers and the initiator's streaming read of them, so anything a store admits fits.
   */
  bundleBytes: LIMITS.blob + 2 * LIMITS.event + (1 << 20),
  /** The largest reconciliation message (a frame is soft-capped at 1 MiB; room for the overshoot). */
  reconcileBytes: 8 << 20,
  /** The most ids one fetch request may ask for. */
  fetchIds: 100_000,
  /**
   * Decoded fetch-answer bytes an initiator holds before storing them: answers are merged up to
   * this so that a ticket sliced across fetch batches is written as one batch.
   */
  pullBufferBytes: 64 << 20,
  /** Reconciliation round trips per sync session before the peer is given up on. */
  rounds: 2048,
  /** Ids (to pull plus to push) one session collects; past it the session transfers what it has. */
  sessionIds: 2_000_000,
  /** Bytes received by one session (reconciliation and transfer). */
  sessionBytes: 64 * 1024 * 1024 * 1024,
  /** Per HTTP request, connect to last body byte. */
  requestTimeoutMs: 60_000,
  /** One whole sync session. */
  sessionTimeoutMs: 30 * 60_000,
});

export type SyncLimits = { -readonly [K in keyof typeof SYNC_LIMITS]: number };
