/**
 * A stream of one batch, made when it is first read (the direct route fetches all rows at once).
 * An iterator by hand, not an async generator: it is on every direct-route request's path.
 */
export function oneBatch<T>(make: () => T): AsyncIterableIterator<T> {
  let over = false;
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next(): Promise<IteratorResult<T>> {
      if (over) return Promise.resolve({ done: true, value: undefined });
      over = true;
      try {
        return Promise.resolve({ done: false, value: make() });
      } catch (e) {
        return Promise.reject(e);
      }
    },
    return(): Promise<IteratorResult<T>> {
      over = true;
      return Promise.resolve({ done: true, value: undefined });
    },
  };
}
