/**
 * The request deadline (`server.limits.request_timeout`): one signal that aborts when the caller
 * aborts (the client went away) or when the deadline passes, whichever is first. Aborting at the
 * deadline carries QUERY_TIMEOUT as the reason, so the engine interrupts its statement, every
 * source driver cancels its own, and the client is told it ran out of time (504), not that it
 * cancelled.
 */
import { ShoalError } from '../errors.js';
import type { CancelSignal } from '../sources/abortable.js';

/**
 * The deadline is itself a CancelSignal (what the source drivers read), and makes an AbortSignal
 * only when something needs a real one (the engine, a planner thread): creating an AbortSignal
 * costs about as much as a point lookup's whole JavaScript on the direct route.
 */
export interface Deadline extends CancelSignal {
  /** The deadline as an AbortSignal, made on first use; it aborts with the deadline. */
  readonly signal: AbortSignal;
  /** Stop the timer and detach from the caller's signal (the request is over). Idempotent. */
  dispose(): void;
}

class RequestDeadline implements Deadline {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] = [];
  private controller: AbortController | undefined;
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly onParent = (): void => this.abort(this.parent.reason);

  constructor(
    private readonly parent: AbortSignal,
    timeoutMs: number,
  ) {
    this.timer = setTimeout(() => {
      this.abort(
        new ShoalError('QUERY_TIMEOUT', `the query ran longer than the request timeout (${timeoutMs / 1000} s)`, {
          hint: 'narrow the query (filters, fewer rows or columns), or ask the operator about server.limits.request_timeout',
        }),
      );
    }, timeoutMs);
    // An idle deadline must not keep the process alive.
    this.timer.unref();
    if (parent.aborted) this.onParent();
    // (no `once`: a signal dispatches abort at most once, and the option costs on every request)
    else parent.addEventListener('abort', this.onParent);
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  addEventListener(type: 'abort', listener: () => void): void {
    if (type === 'abort' && !this.aborted) this.listeners.push(listener);
  }

  removeEventListener(type: 'abort', listener: () => void): void {
    const i = type === 'abort' ? this.listeners.indexOf(listener) : -1;
    if (i >= 0) this.listeners.splice(i, 1);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.parent.removeEventListener('abort', this.onParent);
  }

  /** Abort once, as AbortSignal does: listeners in the order added, each once; one that throws does not stop the others. */
  private abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = [];
    for (const l of listeners) {
      try {
        l();
      } catch (e) {
        // as an EventTarget reports a listener's exception: uncaught, after the dispatch
        queueMicrotask(() => {
          throw e;
        });
      }
    }
  }
}

/** One signal that aborts when the caller aborts (the client went away) or when the deadline passes, whichever is first. */
export function requestDeadline(parent: AbortSignal, timeoutMs: number): Deadline {
  return new RequestDeadline(parent, timeoutMs);
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
export function abortError(signal: { readonly reason: unknown }): ShoalError {
  const reason: unknown = signal.reason;
  return reason instanceof ShoalError ? reason : new ShoalError('QUERY_CANCELLED', 'the query was cancelled', { hint: 'the client went away' });
}
