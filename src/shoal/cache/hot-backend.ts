/**
 * Where hot-table rows are kept between loads and how invalidations travel (law S2: reached
 * through a connection in the config). Two implementations: Redis (`cache.redis_url`, shared by
 * every instance of a fleet) and in process (no URL, one per instance).
 *
 * Each table has a generation. An invalidation bumps it, deletes the stored blob and tells every
 * subscriber. A blob is stored with the generation read BEFORE its rows were read from the source,
 * and only while that generation is still current, so a load that raced an invalidation can never
 * publish rows older than the invalidation.
 */

/** A table's raw rows as stored: the JSON text and the generation they were loaded under. */
export interface HotBlob {
  readonly generation: string;
  readonly json: string;
}

/** An invalidation as subscribers receive it: one table key, or every table. */
export type HotInvalidation = { readonly table: string } | { readonly all: true };

export interface HotBackend {
  /** `redis` (shared by the fleet) or `memory` (this instance only). */
  readonly kind: 'redis' | 'memory';
  /**
   * False while the backend cannot guarantee invalidations reach this instance (Redis down, the
   * subscription not established): cached rows must not be served then.
   */
  healthy(): boolean;
  /** The table's current generation (`'0'` before its first invalidation). */
  generation(table: string): Promise<string>;
  /** The stored blob, if any (its generation may be stale: compare it). */
  read(table: string): Promise<HotBlob | undefined>;
  /** Store a blob unless the generation moved on meanwhile; true when stored. */
  write(table: string, blob: HotBlob, ttlSeconds: number): Promise<boolean>;
  /** Bump generations, drop blobs and tell every subscriber (this instance included). */
  invalidate(tables: readonly string[] | 'all'): Promise<void>;
  /** Called for every invalidation received, and with `{all}` after a reconnect (messages may be lost). */
  subscribe(handler: (inv: HotInvalidation) => void): void;
  close(): Promise<void>;
}

/** The storage keys, as upstream names the blob (`provisa:hot:<table>:blob`). */
export const hotKeys = {
  blob: (table: string): string => `provisa:hot:${table}:blob`,
  generation: (table: string): string => `provisa:hot:${table}:gen`,
  channel: 'provisa:hot:invalidate',
} as const;
