/**
 * One audit record: who asked, as which role, what (by fingerprint, never the SQL), what it read,
 * how it was served, how much came back, how long it took and how it ended. One per request that
 * is not a probe, on every route (data and admin), whatever the outcome.
 */
export interface AuditRecord {
  /** Epoch milliseconds at which the request arrived (the instance's clock). */
  readonly at: number;
  /** The instance that served it (host:pid:random, see instance-id.ts). */
  readonly instance: string;
  /** The principal's id (`anonymous` until authentication sets one). */
  readonly principal: string;
  /** The role the request asked to act as, when it named one. */
  readonly role: string | null;
  readonly method: string;
  /** The URL path, without its query string (a query string can carry values). */
  readonly path: string;
  readonly status: number;
  /** `ok`, `cancelled` (the client went away), or the error code the request ended with. */
  readonly outcome: string;
  /** sql-fingerprint.ts of the submitted SQL; null when the request carried none. */
  readonly sql_fingerprint: string | null;
  /** Keys (`<domain>.<table>`) of the catalog tables the query read. */
  readonly tables: readonly string[];
  /** How the query was served: `engine`, `direct`, `cache` or `mv`; null for other requests. */
  readonly route: string | null;
  /** Rows sent to the client (counted as they stream); null for other requests. */
  readonly rows: number | null;
  readonly duration_ms: number;
}

/** A stored record: its id in the audit log (ascending in insertion order). */
export interface StoredAuditRecord extends AuditRecord {
  readonly id: number;
}
