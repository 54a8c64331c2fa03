/**
 * A caller that aborts should not wait for the statement it started. The caller's promise rejects
 * at once with the signal's reason (QUERY_TIMEOUT when the request deadline passed) or
 * QUERY_CANCELLED; the driver, told through `onAbort`, cancels the statement at the source, and
 * its connection returns to the pool once the statement has ended (see each driver).
 */
import { ShoalError } from '../errors.js';

/** The error an aborted source fetch rejects with: the signal's reason when it is ours. */
export function abortError(signal: AbortSignal, sourceId: string): ShoalError {
  const reason: unknown = signal.reason;
  if (reason instanceof ShoalError) return reason;
  return new ShoalError('QUERY_CANCELLED', 'the query was cancelled while fetching from the source', { where: `sources.${sourceId}` });
}

export function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined, sourceId: string, onAbort?: () => void): Promise<T> {
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
