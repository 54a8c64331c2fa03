/**
 * The request deadline (`server.limits.request_timeout`): one signal that aborts when the caller
 * aborts (the client went away) or when the deadline passes, whichever is first. Aborting at the
 * deadline carries QUERY_TIMEOUT as the reason, so the engine interrupts its statement, every
 * source driver cancels its own, and the client is told it ran out of time (504), not that it
 * cancelled.
 */
import { ShoalError } from '../errors.js';

export interface Deadline {
  readonly signal: AbortSignal;
  /** Stop the timer and detach from the caller's signal (the request is over). Idempotent. */
  dispose(): void;
}

export function requestDeadline(parent: AbortSignal, timeoutMs: number): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(
      new ShoalError('QUERY_TIMEOUT', `the query ran longer than the request timeout (${timeoutMs / 1000} s)`, {
        hint: 'narrow the query (filters, fewer rows or columns), or ask the operator about server.limits.request_timeout',
      }),
    );
  }, timeoutMs);
  // An idle deadline must not keep the process alive.
  timer.unref();
  const onParent = (): void => controller.abort(parent.reason);
  if (parent.aborted) onParent();
  // (no `once`: a signal dispatches abort at most once, and the option costs on every request)
  else parent.addEventListener('abort', onParent);
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      parent.removeEventListener('abort', onParent);
    },
  };
}

/**
 * `batches`, calling `done` once when the stream ends, fails or is abandoned (`return`, also before
 * the first batch). An iterator by hand, not an async generator: every request's stream passes
 * through it, and a generator delegating with `yield*` costs several promise hops per batch.
 * Its consumers read one batch at a time (for await, Readable.from).
 */
export function disposing<T>(batches: AsyncIterable<T>, done: () => void): AsyncIterableIterator<T> {
  let it: AsyncIterator<T> | undefined;
  let over = false;
  const finish = (): void => {
    if (over) return;
    over = true;
    done();
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next(): Promise<IteratorResult<T>> {
      if (over) return { done: true, value: undefined };
      try {
        const r = await (it ??= batches[Symbol.asyncIterator]()).next();
        if (r.done === true) finish();
        return r;
      } catch (e) {
        finish();
        throw e;
      }
    },
    async return(): Promise<IteratorResult<T>> {
      try {
        if (!over && it) await it.return?.();
      } finally {
        finish();
      }
      return { done: true, value: undefined };
    },
  };
}

/** Why an aborted request stopped: QUERY_TIMEOUT from the deadline, else the client went away. */
export function abortError(signal: AbortSignal): ShoalError {
  const reason: unknown = signal.reason;
  return reason instanceof ShoalError ? reason : new ShoalError('QUERY_CANCELLED', 'the query was cancelled', { hint: 'the client went away' });
}
