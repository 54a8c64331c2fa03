/**
 * Where cached results live: in this process (a byte-bounded LRU) or in Redis (shared by the
 * fleet). A store holds opaque entry text under a key; `get` and `set` throw when the store is
 * unreachable, and the cache turns that into a live answer (a fallback), never a client error.
 */
export interface ResultStore {
  readonly tier: 'memory' | 'redis';
  /** The entry text, or undefined when absent or expired. Throws when the store is unreachable. */
  get(key: string): Promise<string | undefined>;
  /** Store an entry for `ttlMs`, indexed under the tables it read (for `invalidate(table)`). */
  set(key: string, text: string, ttlMs: number, tables: readonly string[]): Promise<void>;
  /** Drop every entry that read `table` (`<domain>.<table>`), or every entry. */
  invalidate(table?: string): Promise<void>;
  /** Bytes held: in process, the entries kept; in Redis, the live entries this instance wrote. */
  bytes(): number;
  close(): Promise<void>;
}
