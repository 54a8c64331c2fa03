import { Redis } from 'ioredis';
import type { ResultStore } from './result-store.js';

/**
 * Entries are `shoal:result:<deployment>:<sha256>`; each table read has an index set of the entry
 * keys, `shoal:result-table:<deployment>:<table>`. The deployment namespace keeps fleets that
 * share one Redis apart: neither reads, indexes nor invalidates the other's entries.
 */
const entryPrefix = (ns: string): string => `shoal:result:${ns}:`;
const indexPrefix = (ns: string): string => `shoal:result-table:${ns}:`;
const NAMESPACE = /^[A-Za-z0-9-]{1,64}$/;

export interface RedisResultStoreOptions {
  /** Longest wait for one command before the cache gives up and serves live (ms, default 500). */
  readonly commandTimeoutMs?: number;
  /** How long `open` waits for the first connection (ms, default 2000); after that it keeps retrying in the background. */
  readonly connectTimeoutMs?: number;
  readonly now?: () => number;
  /** The deployment id keys live under (default `local`). */
  readonly namespace?: string;
}

/**
 * The fleet's shared result store in Redis (`cache.redis_url`). Commands never queue while Redis
 * is down: they fail at once (or after `commandTimeoutMs`), the cache serves the query live and
 * counts a fallback, and the client reconnects in the background.
 */
export class RedisResultStore implements ResultStore {
  readonly tier = 'redis' as const;
  /** Entries this instance wrote, for the bytes gauge (key → bytes, expiry). */
  private readonly written = new Map<string, { bytes: number; expiresAt: number }>();

  private readonly ENTRY: string;
  private readonly INDEX: string;

  private constructor(
    private readonly redis: Redis,
    private readonly now: () => number,
    namespace: string,
  ) {
    if (!NAMESPACE.test(namespace)) throw new TypeError(`result store namespace "${namespace}" is not [A-Za-z0-9-]{1,64}`);
    this.ENTRY = entryPrefix(namespace);
    this.INDEX = indexPrefix(namespace);
  }

  static async open(url: string, options: RedisResultStoreOptions = {}): Promise<RedisResultStore> {
    const redis = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 500,
      connectTimeout: options.connectTimeoutMs ?? 2000,
      retryStrategy: (attempt) => Math.min(100 * attempt, 2000),
    });
    redis.on('error', () => undefined); // an outage is reported per lookup, as a fallback
    // an unreachable Redis at start is an outage like any other: keep going, reconnect later
    await redis.connect().catch(() => undefined);
    return new RedisResultStore(redis, options.now ?? Date.now, options.namespace ?? 'local');
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.redis.get(this.ENTRY + key)) ?? undefined;
  }

  async set(key: string, text: string, ttlMs: number, tables: readonly string[]): Promise<void> {
    if (ttlMs <= 0) return;
    const p = this.redis.multi().set(this.ENTRY + key, text, 'PX', ttlMs);
    // an index lives as long as its longest entry: NX sets a first expiry, GT only ever extends it
    for (const t of tables) p.sadd(this.INDEX + t, key).pexpire(this.INDEX + t, ttlMs, 'NX').pexpire(this.INDEX + t, ttlMs, 'GT');
    const results = await p.exec();
    const failed = results?.find(([e]) => e);
    if (!results || failed) throw failed?.[0] ?? new Error('redis transaction aborted');
    this.written.set(key, { bytes: Buffer.byteLength(text, 'utf8'), expiresAt: this.now() + ttlMs });
  }

  async invalidate(table?: string): Promise<void> {
    if (table !== undefined) {
      const index = this.INDEX + table.toLowerCase();
      const keys = await this.redis.smembers(index);
      for (let i = 0; i < keys.length; i += 500) await this.redis.unlink(...keys.slice(i, i + 500).map((k) => this.ENTRY + k));
      await this.redis.unlink(index);
      for (const k of keys) this.written.delete(k);
      return;
    }
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${this.ENTRY}*`, 'COUNT', 1000);
      if (keys.length > 0) await this.redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${this.INDEX}*`, 'COUNT', 1000);
      if (keys.length > 0) await this.redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
    this.written.clear();
  }

  bytes(): number {
    const now = this.now();
    let sum = 0;
    for (const [k, w] of this.written) {
      if (w.expiresAt <= now) this.written.delete(k);
      else sum += w.bytes;
    }
    return sum;
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
