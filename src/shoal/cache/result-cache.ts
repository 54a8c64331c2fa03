/**
 * The result cache (federation-fleet.md §5.4, "separate tier"): whole governed answers, keyed on
 * everything that decides them (result-key.ts), kept for the least TTL of the tables they read
 * (result-ttl.ts), in Redis when `cache.redis_url` is set or in process otherwise.
 *
 * It is an optimization, never a source of truth (law S5): an uncacheable query, an absent or
 * expired entry, or a store outage all mean the query runs live, and the client sees the same
 * body either way — only `X-Provisa-Cache: HIT|MISS` and `X-Provisa-Cache-Age` (seconds, on a
 * HIT) tell them apart. A live answer is stored after its last row has been produced, so an
 * aborted or failed query never leaves a partial entry.
 */
import type { CacheConfig } from '../config/model.js';
import { CACHE_METRICS, declareCacheMetrics, type MetricsRegistry } from '../server/metrics.js';
import type { QueryResult } from '../server/query-service.js';
import { decodeEntry, encodeRow, entryText } from './result-codec.js';
import { type ResultKeyContext, type ResultKeyInput, resultCacheability } from './result-key.js';
import { MemoryResultStore } from './result-memory-store.js';
import { RedisResultStore } from './result-redis-store.js';
import type { ResultStore } from './result-store.js';

export const CACHE_HEADER = 'x-provisa-cache';
export const CACHE_AGE_HEADER = 'x-provisa-cache-age';
/** Why a MISS was not (or could not be) a HIT, when it is not simply an absent entry. */
export const CACHE_REASON_HEADER = 'x-shoal-cache-reason';

export interface ResultCacheOptions {
  /** The instant in ms (default `Date.now`): entry age and expiry are read from it. */
  readonly clock?: () => number;
  readonly metrics?: MetricsRegistry;
  /** In-process store bound, in bytes of stored entry text (default 64 MiB). */
  readonly maxBytes?: number;
  /** The largest result stored, in bytes of entry text (default 4 MiB); larger answers are served live. */
  readonly maxEntryBytes?: number;
  /** Redis command timeout (ms, default 500). */
  readonly redisTimeoutMs?: number;
  /** A store to use instead of the one the config names (tests). */
  readonly store?: ResultStore;
}

/** The outcome of one lookup: a cached answer, or a way to run live (and store the answer). */
export interface ResultLookup {
  readonly status: 'HIT' | 'MISS';
  /** Response headers describing the lookup. */
  readonly headers: Readonly<Record<string, string>>;
  /** HIT: the cached result with `extraHeaders` and the cache headers. */
  hit(extraHeaders: Readonly<Record<string, string>>): QueryResult;
  /** MISS: the live result, passed through unchanged, stored once it has been read to the end. */
  keep(live: QueryResult): QueryResult;
}

const BATCH = 1024;
const ascii = (s: string): string => s.replace(/[^\x20-\x7e]/g, '?');

export class ResultCache {
  private readonly clock: () => number;
  private readonly maxEntryBytes: number;

  private constructor(
    /** Where entries live; `tier` says which. */
    readonly store: ResultStore,
    private readonly defaultTtl: number,
    private readonly options: ResultCacheOptions,
  ) {
    this.clock = options.clock ?? Date.now;
    this.maxEntryBytes = options.maxEntryBytes ?? 4 * 1024 * 1024;
    if (options.metrics) declareCacheMetrics(options.metrics, 'result');
  }

  /** The cache a config asks for, or undefined when `cache.enabled` is false. */
  static async open(config: CacheConfig, options: ResultCacheOptions = {}): Promise<ResultCache | undefined> {
    if (!config.enabled) return undefined;
    const clock = options.clock ?? Date.now;
    const store =
      options.store ??
      (config.redis_url
        ? await RedisResultStore.open(config.redis_url, { now: clock, ...(options.redisTimeoutMs === undefined ? {} : { commandTimeoutMs: options.redisTimeoutMs }) })
        : new MemoryResultStore(options.maxBytes ?? 64 * 1024 * 1024, clock));
    return new ResultCache(store, config.default_ttl, options);
  }

  /** Look a planned query up. Never throws for a store failure: that is a MISS and a fallback. */
  async lookup(input: ResultKeyInput, ctx: Omit<ResultKeyContext, 'defaultTtl'>): Promise<ResultLookup> {
    const c = resultCacheability(input, { ...ctx, defaultTtl: this.defaultTtl });
    if (!c.cacheable) {
      this.count('misses');
      return this.live({ [CACHE_HEADER]: 'MISS', [CACHE_REASON_HEADER]: ascii(`uncacheable: ${c.reason}`) });
    }
    let text: string | undefined;
    try {
      text = await this.store.get(c.key);
    } catch {
      this.count('fallbacks');
      return this.live({ [CACHE_HEADER]: 'MISS', [CACHE_REASON_HEADER]: 'cache store unavailable' });
    }
    const now = this.clock();
    const entry = text === undefined ? undefined : decodeEntry(text);
    if (entry && now - entry.at < entry.ttlMs) {
      this.count('hits');
      const headers = { [CACHE_HEADER]: 'HIT', [CACHE_AGE_HEADER]: String(Math.max(0, Math.floor((now - entry.at) / 1000))) };
      return {
        status: 'HIT',
        headers,
        hit: (extra) => ({
          columns: entry.columns,
          headers: { ...extra, ...headers },
          batches: (async function* () {
            for (let i = 0; i < entry.rows.length; i += BATCH) yield entry.rows.slice(i, i + BATCH);
          })(),
        }),
        keep: (live) => live,
      };
    }
    this.count('misses');
    return this.live({ [CACHE_HEADER]: 'MISS' }, (live) => this.tee(live, c.key, c.ttlSeconds * 1000, c.tables));
  }

  /**
   * Drop cached results that read `table` (`<domain>.<table>`), or all of them. Never throws:
   * false means the store was unreachable, so entries in it may be served until their TTL ends.
   */
  async invalidate(table?: string): Promise<boolean> {
    try {
      await this.store.invalidate(table);
      return true;
    } catch {
      return false;
    } finally {
      this.updateBytes();
    }
  }

  async close(): Promise<void> {
    await this.store.close();
  }

  private live(headers: Readonly<Record<string, string>>, keep: (live: QueryResult) => QueryResult = (live) => live): ResultLookup {
    return {
      status: 'MISS',
      headers,
      hit: () => {
        throw new Error('a MISS has no cached result');
      },
      keep,
    };
  }

  /** Pass the live batches through; once the last one has gone, store what went by. */
  private tee(live: QueryResult, key: string, ttlMs: number, tables: readonly string[]): QueryResult {
    const { store, maxEntryBytes } = this;
    const stored = (): void => this.updateBytes();
    const at = this.clock();
    return {
      ...live,
      batches: (async function* () {
        const parts: string[] = [];
        let size = 0;
        let storing = true;
        for await (const batch of live.batches) {
          if (storing) {
            for (const row of batch) {
              const encoded = encodeRow(row);
              const json = encoded === undefined ? undefined : JSON.stringify(encoded);
              size += (json?.length ?? 0) + 1;
              if (json === undefined || size > maxEntryBytes) {
                storing = false;
                parts.length = 0;
                break;
              }
              parts.push(json);
            }
          }
          yield batch;
        }
        if (!storing) return;
        const text = entryText({ at, ttlMs, tables, columns: live.columns }, `[${parts.join(',')}]`);
        if (Buffer.byteLength(text, 'utf8') > maxEntryBytes) return;
        // a failed write only costs a later hit; the answer has been served
        await store.set(key, text, ttlMs, tables).catch(() => undefined);
        stored();
      })(),
    };
  }

  private count(what: 'hits' | 'misses' | 'fallbacks'): void {
    this.options.metrics?.inc(CACHE_METRICS[what], { tier: 'result' });
  }

  private updateBytes(): void {
    this.options.metrics?.set(CACHE_METRICS.bytes, this.store.bytes(), { tier: 'result' });
  }
}
