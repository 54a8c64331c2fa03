import type { Timer } from '../../../src/shoal/registry/timer.js';

/** A Timer driven by the test: `fire()` runs every pending callback as if its interval had elapsed. */
export class ManualTimer implements Timer {
  private nextId = 1;
  private readonly pending = new Map<number, { fn: () => void; ms: number }>();

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.pending.set(id, { fn, ms });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** The intervals currently scheduled. */
  get scheduled(): number[] {
    return [...this.pending.values()].map((p) => p.ms);
  }

  fire(): number {
    const due = [...this.pending.values()];
    this.pending.clear();
    for (const d of due) d.fn();
    return due.length;
  }
}
