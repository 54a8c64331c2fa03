import type { ResultStore } from './result-store.js';

interface Held {
  readonly text: string;
  readonly bytes: number;
  readonly expiresAt: number;
  readonly tables: readonly string[];
}

/**
 * A per-instance result store: an LRU bounded by the UTF-8 bytes of the entries it holds, with
 * expiry read from an injectable clock. An entry larger than the whole bound is not kept.
 */
export class MemoryResultStore implements ResultStore {
  readonly tier = 'memory' as const;
  /** Map order is recency: a read moves the entry to the end; eviction takes from the front. */
  private readonly entries = new Map<string, Held>();
  private held = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  async get(key: string): Promise<string | undefined> {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    if (e.expiresAt <= this.now()) {
      this.held -= e.bytes;
      return undefined;
    }
    this.entries.set(key, e);
    return e.text;
  }

  async set(key: string, text: string, ttlMs: number, tables: readonly string[]): Promise<void> {
    this.drop(key);
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > this.maxBytes || ttlMs <= 0) return;
    // least recently used first (deleting while iterating a Map is well defined)
    for (const k of this.entries.keys()) {
      if (this.held + bytes <= this.maxBytes) break;
      this.drop(k);
    }
    this.entries.set(key, { text, bytes, expiresAt: this.now() + ttlMs, tables });
    this.held += bytes;
  }

  async invalidate(table?: string): Promise<void> {
    if (table === undefined) {
      this.entries.clear();
      this.held = 0;
      return;
    }
    const t = table.toLowerCase();
    for (const [k, e] of [...this.entries]) if (e.tables.includes(t)) this.drop(k);
  }

  bytes(): number {
    return this.held;
  }

  /** Number of entries held (tests). */
  get size(): number {
    return this.entries.size;
  }

  async close(): Promise<void> {
    await this.invalidate();
  }

  private drop(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.held -= e.bytes;
  }
}
