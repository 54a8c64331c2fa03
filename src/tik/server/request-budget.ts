/**
 * Requests per key (a client address) per fixed window: a responder's bound on the rounds one
 * client may drive, since the sync responder itself keeps no per-peer state. At most `maxKeys`
 * keys are tracked; the oldest window is dropped first.
 */
export class RequestBudget {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly perWindow: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 10_000,
  ) {}

  /** Counts one request; false when `key` has used its budget for the current window. */
  take(key: string): boolean {
    const t = this.now();
    let w = this.windows.get(key);
    if (w === undefined || t - w.start >= this.windowMs) {
      this.windows.delete(key);
      if (this.windows.size >= this.maxKeys) this.windows.delete(this.windows.keys().next().value!);
      w = { start: t, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    return w.count <= this.perWindow;
  }
}
