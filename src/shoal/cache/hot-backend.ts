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

/** The storage keys and the invalidation channel of one deployment's hot tables. */
export interface HotKeys {
  readonly blob: (table: string) => string;
  readonly generation: (table: string) => string;
  /** A SCAN pattern matching every key of this deployment with the suffix (`blob`, `gen`). */
  readonly pattern: (suffix: 'blob' | 'gen') => string;
  /** The table a key of this deployment names (undefined for any other key). */
  readonly tableOf: (key: string, suffix: 'blob' | 'gen') => string | undefined;
  readonly channel: string;
}

const NAMESPACE = /^[A-Za-z0-9-]{1,64}$/;

/**
 * Upstream's names (`provisa:hot:<table>:blob`) with the deployment id after the prefix
 * (`provisa:hot:<deployment>:<table>:blob`, channel `provisa:hot:<deployment>:invalidate`), so two
 * deployments sharing one Redis never read, overwrite or invalidate each other's tables.
 */
export function hotKeys(deployment: string): HotKeys {
  if (!NAMESPACE.test(deployment)) throw new TypeError(`hot-cache namespace "${deployment}" is not [A-Za-z0-9-]{1,64}`);
  const prefix = `provisa:hot:${deployment}:`;
  return Object.freeze({
    blob: (table: string) => `${prefix}${table}:blob`,
    generation: (table: string) => `${prefix}${table}:gen`,
    pattern: (suffix: 'blob' | 'gen') => `${prefix}*:${suffix}`,
    tableOf: (key: string, suffix: 'blob' | 'gen') => (key.startsWith(prefix) && key.endsWith(`:${suffix}`) ? key.slice(prefix.length, -(suffix.length + 1)) : undefined),
    channel: `${prefix}invalidate`,
  });
}
