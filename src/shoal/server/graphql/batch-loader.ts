/**
 * Batching for nested fields: every parent row of one level asks for its related rows in the same
 * turn of the event loop (graphql-js resolves a list's items together), and the loader answers
 * them all with one fetch — one statement per relationship per level, never one per parent row.
 */
export class BatchLoader<V> {
  private pending = new Map<string, { resolve: (v: V) => void; reject: (e: unknown) => void }[]>();
  private scheduled = false;

  /**
   * `fetch` answers a set of keys; a key it leaves out gets `missing`. `deliver` hears each value
   * with how many callers get it, before any does: one that throws fails the whole batch.
   */
  constructor(
    private readonly fetch: (keys: readonly string[]) => Promise<ReadonlyMap<string, V>>,
    private readonly missing: V,
    private readonly deliver?: (value: V, callers: number) => void,
  ) {}

  load(key: string): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      const waiting = this.pending.get(key);
      if (waiting) waiting.push({ resolve, reject });
      else this.pending.set(key, [{ resolve, reject }]);
      if (!this.scheduled) {
        this.scheduled = true;
        // after every promise job queued now: the whole level has asked by then
        setImmediate(() => void this.dispatch());
      }
    });
  }

  private async dispatch(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    this.scheduled = false;
    try {
      const found = await this.fetch([...batch.keys()]);
      if (this.deliver) for (const [k, waiting] of batch) this.deliver(found.get(k) ?? this.missing, waiting.length);
      for (const [k, waiting] of batch) for (const w of waiting) w.resolve(found.get(k) ?? this.missing);
    } catch (e) {
      for (const waiting of batch.values()) for (const w of waiting) w.reject(e);
    }
  }
}
