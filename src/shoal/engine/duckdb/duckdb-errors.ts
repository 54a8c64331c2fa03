/** How a failed or cancelled DuckDB statement is reported: a ShoalError that leaks no row values. */
import { ShoalError } from '../../errors.js';
import { dataException } from '../../sources/source-errors.js';

/** Why the query stopped: the signal's own reason when it is ours (QUERY_TIMEOUT), else a cancellation. */
export function cancelled(signal?: AbortSignal): ShoalError {
  const reason: unknown = signal?.reason;
  if (reason instanceof ShoalError) return reason;
  return new ShoalError('QUERY_CANCELLED', 'the query was cancelled', { hint: 'the client went away or the request timed out' });
}

/** DuckDB's error text can hold row values: keep it as the cause, report its class only. */
export function engineError(e: unknown): ShoalError {
  if (e instanceof ShoalError) return e;
  const text = e instanceof Error ? e.message : String(e);
  const kind = /^([A-Za-z ]+ Error):/.exec(text)?.[1] ?? 'Error';
  if (kind === 'Out of Memory Error') {
    return new ShoalError('QUERY_MEMORY_LIMIT', 'the query needs more memory than the engine may use', {
      hint: 'narrow the query (fewer rows, columns or groups), or ask the operator about server.limits.memory_limit and max_temp_directory_size',
      cause: e,
    });
  }
  // a failed cast or an overflow is the client's own SQL meeting the data, as at a source (a 400);
  // anything else the engine rejects is what shoal or the catalog composed (a 502)
  if (kind === 'Conversion Error' || kind === 'Out of Range Error') {
    return dataException('the engine', kind === 'Out of Range Error' || /out of range/i.test(text) ? '22003' : '22018', e);
  }
  return new ShoalError('ENGINE_QUERY_FAILED', `the engine could not run the query (${kind})`, {
    hint: 'check the SQL against the registered tables and columns',
    cause: e,
  });
}
