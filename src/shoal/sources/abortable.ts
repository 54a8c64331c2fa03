/**
 * Drivers can't cancel a statement in flight; a caller that aborts should not have to wait for
 * it. The statement finishes (or fails) in the background and its connection returns to the pool.
 */
import { ShoalError } from '../errors.js';

export function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined, sourceId: string): Promise<T> {
  if (signal === undefined) return work;
  const cancelled = () =>
    new ShoalError('QUERY_CANCELLED', 'the query was cancelled while fetching from the source', { where: `sources.${sourceId}` });
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(cancelled());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      work.catch(() => undefined);
      reject(cancelled());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
