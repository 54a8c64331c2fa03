/**
 * How many requests each principal has running on this instance, against
 * `server.limits.max_concurrent_queries`. A slot is taken when a query request starts and given
 * back when its response is over (finished, failed or abandoned), so a long stream holds its slot.
 * Per instance: a fleet of N instances admits up to N × the limit per principal.
 */
export class ConcurrencyLimit {
  private readonly running = new Map<string, number>();

  constructor(readonly max: number) {}

  /** Take a slot for `key`; undefined when it already holds `max`. The release function is idempotent. */
  tryAcquire(key: string): (() => void) | undefined {
    const held = this.running.get(key) ?? 0;
    if (held >= this.max) return undefined;
    this.running.set(key, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const now = (this.running.get(key) ?? 1) - 1;
      if (now <= 0) this.running.delete(key);
      else this.running.set(key, now);
    };
  }

  /** Requests `key` has running now. */
  inFlight(key: string): number {
    return this.running.get(key) ?? 0;
  }
}
