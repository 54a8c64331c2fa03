/** The scheduling the epoch watcher needs, injectable so tests drive it without waiting. */
export interface Timer {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimer: Timer = {
  setTimeout: (fn, ms) => {
    const h = setTimeout(fn, ms);
    // a poll loop must not keep a process alive on its own
    h.unref();
    return h;
  },
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};
