/**
 * The columns a fenced lease needs in its host table, next to the table's own key. A table that
 * hosts leases (shoal's `materialized_views`, tik's per-pipeline effect-delivery table) includes
 * this fragment in its CREATE TABLE; the same text works on SQLite and PostgreSQL.
 *
 * - `writer`: the holder's token, NULL when free;
 * - `lease_until_ms`: the lease's end in epoch milliseconds on the DATABASE clock, NULL when free;
 * - `lease_epoch`: the fencing token, incremented by every successful claim and never reset;
 * - `lease_prev_writer`: set by a claim to the writer it displaced (non-NULL means the claim
 *   reclaimed an expired lease, so the new holder must reconcile).
 */
export const LEASE_COLUMNS_DDL = `writer TEXT,
  lease_until_ms BIGINT,
  lease_epoch BIGINT NOT NULL DEFAULT 0,
  lease_prev_writer TEXT`;

/** Default lease length (upstream's DEFAULT_LEASE_SECONDS = 120). */
export const DEFAULT_LEASE_MS = 120_000;
