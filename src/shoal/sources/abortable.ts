/**
 * A caller that aborts should not wait for the statement it started. The caller's promise rejects
 * at once with the signal's reason (QUERY_TIMEOUT when the request deadline passed) or
 * QUERY_CANCELLED; the driver, told through `onAbort`, cancels the statement at the source, and
 * its connection returns to the pool once the statement has ended (see each driver).
 */
import { ShoalError } from '../errors.js';

/**
 * What a driver needs of a cancellation: the part of AbortSignal it reads (an AbortSignal is
 * one). The request deadline is one without making an AbortSignal per request (request-deadline.ts).
 */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** The error an aborted source fetch rejects with: the signal's reason when it is ours. */
export function abortError(signal: CancelSignal, sourceId: string): ShoalError {
  const reason: unknown = signal.reason;
  if (reason instanceof ShoalError) return reason;
  return new ShoalError('QUERY_CANCELLED', 'the query was cancelled while fetching from the source', { where: `sources.${sourceId}` });
}

export function abortable<T>(work: Promise<T>, signal: CancelSignal | undefined, sourceId: string, onAbort?: () => void): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    onAbort?.();
    return Promise.reject(abortError(signal, sourceId));
  }
  return new Promise<T>((resolve, reject) => {
    const aborted = (): void => {
      work.catch(() => undefined);
      onAbort?.();
      reject(abortError(signal, sourceId));
    };
    // (no `once`: a signal dispatches abort at most once, and the option costs on every fetch)
    signal.addEventListener('abort', aborted);
    work.then(
      (v) => {
        signal.removeEventListener('abort', aborted);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', aborted);
        reject(e);
      },
    );
  });
}
