/**
 * The in-process hot backend (no `cache.redis_url`): this instance's own blobs and generations.
 * Invalidations reach only this instance; peers converge when their own copy's refresh interval
 * runs out (staleness bounded by `hot_tables.refresh_interval`).
 */
import type { HotBackend, HotBlob, HotInvalidation } from './hot-backend.js';

export class MemoryHotBackend implements HotBackend {
  readonly kind = 'memory' as const;
  private readonly blobs = new Map<string, { blob: HotBlob; expires: number }>();
  private readonly generations = new Map<string, number>();
  private readonly handlers: ((inv: HotInvalidation) => void)[] = [];

  /** `now`: epoch milliseconds, for blob expiry. */
  constructor(private readonly now: () => number = Date.now) {}

  healthy(): boolean {
    return true;
  }

  async generation(table: string): Promise<string> {
    return String(this.generations.get(table) ?? 0);
  }

  async read(table: string): Promise<HotBlob | undefined> {
    const e = this.blobs.get(table);
    if (!e) return undefined;
    if (e.expires <= this.now()) {
      this.blobs.delete(table);
      return undefined;
    }
    return e.blob;
  }

  async write(table: string, blob: HotBlob, ttlSeconds: number): Promise<boolean> {
    if (blob.generation !== (await this.generation(table))) return false;
    this.blobs.set(table, { blob, expires: this.now() + ttlSeconds * 1000 });
    return true;
  }

  async invalidate(tables: readonly string[] | 'all'): Promise<void> {
    const names = tables === 'all' ? [...new Set([...this.blobs.keys(), ...this.generations.keys()])] : tables;
    for (const t of names) {
      this.generations.set(t, (this.generations.get(t) ?? 0) + 1);
      this.blobs.delete(t);
    }
    const inv: HotInvalidation[] = tables === 'all' ? [{ all: true }] : tables.map((table) => ({ table }));
    for (const i of inv) for (const h of this.handlers) h(i);
  }

  subscribe(handler: (inv: HotInvalidation) => void): void {
    this.handlers.push(handler);
  }

  async close(): Promise<void> {
    this.blobs.clear();
  }
}
