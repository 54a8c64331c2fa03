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
import { createHash } from 'node:crypto';
import type { CacheConfig } from '../config/model.js';
import { CACHE_METRICS, declareCacheMetrics, type MetricsRegistry } from '../server/metrics.js';
import type { QueryResult } from '../server/query-service.js';
import { type ResultEntry, decodeEntry, encodeRow, entryText } from './result-codec.js';
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
  /**
   * The deployment id (the registry's): part of every key and the Redis namespace, so deployments
   * sharing one Redis never serve each other's entries. Default `local` (tests, one deployment).
   */
  readonly deployment?: string;
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
/** Requests remembered for the fast path; the map is dropped whole when it reaches this size. */
const MAX_REMEMBERED = 10_000;

/** A request as it arrives, before planning. */
export interface ResultRequest {
  readonly epoch: number;
  readonly role: string;
  readonly sql: string;
  readonly vars: Readonly<Record<string, string>>;
}

/** What planning a cacheable request gave, remembered so a repeat can skip planning. */
interface Remembered {
  readonly key: string;
  readonly route: string;
}

const requestKey = (r: ResultRequest): string =>
  createHash('sha256')
    .update(JSON.stringify([r.epoch, r.role, r.sql, Object.entries(r.vars).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]))
    .digest('hex');
const ascii = (s: string): string => s.replace(/[^\x20-\x7e]/g, '?');

export class ResultCache {
  private readonly clock: () => number;
  private readonly maxEntryBytes: number;
  private readonly remembered = new Map<string, Remembered>();

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
        ? await RedisResultStore.open(config.redis_url, {
            now: clock,
            namespace: options.deployment ?? 'local',
            ...(options.redisTimeoutMs === undefined ? {} : { commandTimeoutMs: options.redisTimeoutMs }),
          })
        : new MemoryResultStore(options.maxBytes ?? 64 * 1024 * 1024, clock));
    return new ResultCache(store, config.default_ttl, options);
  }

  /** Look a planned query up. Never throws for a store failure: that is a MISS and a fallback. */
  async lookup(input: ResultKeyInput, ctx: Omit<ResultKeyContext, 'defaultTtl' | 'deployment'>): Promise<ResultLookup> {
    const c = resultCacheability(input, { ...ctx, deployment: this.options.deployment ?? 'local', defaultTtl: this.defaultTtl });
    // planning is a function of the request and the catalog epoch once nothing reads the clock (a
    // cacheable query reads none); an MV read also depends on the snapshot bound, so it is not remembered
    if (c.cacheable && input.mv === undefined) {
      if (this.remembered.size >= MAX_REMEMBERED) this.remembered.clear();
      this.remembered.set(requestKey({ epoch: input.epoch, role: input.role, sql: input.userSql, vars: input.vars }), { key: c.key, route: input.route });
    }
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
    const served = this.fresh(text);
    if (served) {
      this.count('hits');
      return { status: 'HIT', headers: served.headers, hit: (extra) => served.result(extra), keep: (live) => live };
    }
    this.count('misses');
    return this.live({ [CACHE_HEADER]: 'MISS' }, (live) => this.tee(live, c.key, c.ttlSeconds * 1000, c.tables));
  }

  /**
   * The fast path, before planning: a request seen before (same epoch, role, SQL and session
   * variables — all of them, since what the plan reads is not known yet) whose stored answer is
   * still fresh. Undefined means "plan and look up as usual" (nothing is counted here then).
   */
  async lookupRequest(request: ResultRequest): Promise<QueryResult | undefined> {
    const known = this.remembered.get(requestKey(request));
    if (!known) return undefined;
    let text: string | undefined;
    try {
      text = await this.store.get(known.key);
    } catch {
      return undefined; // the planned lookup meets the same outage and counts it
    }
    const served = this.fresh(text);
    if (!served) return undefined;
    this.count('hits');
    return served.result({ 'x-shoal-route': known.route });
  }

  /** A stored entry that is still fresh on the clock, as a HIT result. */
  private fresh(text: string | undefined): { headers: Record<string, string>; result: (extra: Readonly<Record<string, string>>) => QueryResult } | undefined {
    const entry: ResultEntry | undefined = text === undefined ? undefined : decodeEntry(text);
    const now = this.clock();
    if (!entry || now - entry.at >= entry.ttlMs) return undefined;
    const headers = { [CACHE_HEADER]: 'HIT', [CACHE_AGE_HEADER]: String(Math.max(0, Math.floor((now - entry.at) / 1000))) };
    return {
      headers,
      result: (extra) => ({
        columns: entry.columns,
        headers: { ...extra, ...headers },
        tables: entry.tables,
        batches: (async function* () {
          for (let i = 0; i < entry.rows.length; i += BATCH) yield entry.rows.slice(i, i + BATCH);
        })(),
      }),
    };
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
