/**
 * A counting semaphore with a bounded queue: at most `concurrency` holders at once and at most
 * `queue` waiters; past that `tryAcquire` says no at once, so waiting requests cannot pile up.
 * Used by tik for sync pushes and fetch answers (the large allocations of a replica) and by shoal
 * for the statements of one GraphQL request.
 */
export class BoundedGate {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly concurrency: number,
    readonly queue: number,
  ) {}

  /** A release function once admitted, or undefined when the queue is full. */
  async tryAcquire(): Promise<(() => void) | undefined> {
    if (this.active < this.concurrency) {
      this.active++;
      return this.releaser();
    }
    if (this.waiting.length >= this.queue) return undefined;
    await new Promise<void>((r) => this.waiting.push(r));
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next(); // the slot passes straight to the next waiter
      else this.active--;
    };
  }
}
