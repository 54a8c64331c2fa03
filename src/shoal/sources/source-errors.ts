/**
 * Telling "the source is down or refused us" (SOURCE_UNAVAILABLE, a 503) apart from "the source
 * ran our statement and rejected it" (SOURCE_QUERY_FAILED). Raw driver text is kept as the cause,
 * never put in the message: it can carry row values or credentials.
 */
import { ShoalError } from '../errors.js';
import { isCodedError } from '../../core/errors.js';

const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH',
  'EPIPE', 'PROTOCOL_CONNECTION_LOST', 'ER_ACCESS_DENIED_ERROR', 'ER_BAD_DB_ERROR', 'ER_DBACCESS_DENIED_ERROR',
  'ENOENT', 'SQLITE_CANTOPEN', 'SQLITE_NOTADB', 'SQLITE_CORRUPT', 'SQLITE_BUSY',
]);

function codeOf(e: unknown): string | undefined {
  if (e !== null && typeof e === 'object' && 'code' in e) {
    const c = (e as { code: unknown }).code;
    return typeof c === 'string' ? c : undefined;
  }
  return undefined;
}

/** True when `e` means the source could not be reached or would not let us in. */
export function isUnavailable(e: unknown): boolean {
  const code = codeOf(e);
  if (code !== undefined) {
    if (NETWORK_CODES.has(code)) return true;
    // PostgreSQL SQLSTATE classes 08 (connection), 28 (authorization), 3D (no such database),
    // 53 (insufficient resources), 57P0x (shutdown / cannot connect now).
    if (/^(08|28|3D|53)/.test(code) || /^57P0/.test(code)) return true;
  }
  const msg = e instanceof Error ? e.message : '';
  return /timeout exceeded when trying to connect|Connection terminated|connect ETIMEDOUT|getaddrinfo|Too many connections/i.test(msg);
}

/** Wrap a driver failure into the right ShoalError, naming the source. */
export function sourceFailure(sourceId: string, e: unknown, action: string): ShoalError {
  if (isCodedError(e)) return e as ShoalError;
  const code = codeOf(e);
  if (isUnavailable(e)) {
    return new ShoalError('SOURCE_UNAVAILABLE', `source "${sourceId}" is unavailable (${code ?? 'connection failed'}) while ${action}`, {
      where: `sources.${sourceId}`,
      hint: 'check that the source is running and reachable, and its host, port, database and credentials',
      cause: e,
    });
  }
  return new ShoalError('SOURCE_QUERY_FAILED', `source "${sourceId}" rejected the statement while ${action}${code ? ` (${code})` : ''}`, {
    where: `sources.${sourceId}`,
    hint: 'check that the registered schema, table and columns exist at the source',
    cause: e,
  });
}
