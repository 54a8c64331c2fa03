/**
 * A registry that cannot be reached (its database is down, refuses connections, or dropped the
 * connection mid-transaction) is REGISTRY_UNAVAILABLE, a 503 the client may retry, never an
 * untyped 500. The driver's text stays the cause; the message names the registry without its
 * credentials.
 */
import { isCodedError } from '../../core/errors.js';
import { redactUrl } from '../../core/sql/sql-url.js';
import { ShoalError } from '../errors.js';

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);
const SQLITE_CODES = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_CANTOPEN', 'SQLITE_IOERR', 'SQLITE_READONLY', 'SQLITE_FULL']);

function codeOf(e: unknown): string | undefined {
  const c = e !== null && typeof e === 'object' && 'code' in e ? (e as { code: unknown }).code : undefined;
  return typeof c === 'string' ? c : undefined;
}

/** True when `e` says the registry's database could not be reached or used right now. */
export function isRegistryUnavailable(e: unknown): boolean {
  const code = codeOf(e);
  if (code !== undefined) {
    if (NETWORK_CODES.has(code) || SQLITE_CODES.has(code) || code.startsWith('SQLITE_IOERR')) return true;
    // PostgreSQL: connection (08), authorization (28), no such database (3D), resources (53),
    // shutdown / terminated (57P0x), database not accepting connections (55000).
    if (/^(08|28|3D|53)/.test(code) || /^57P0/.test(code) || code === '55000') return true;
  }
  const msg = e instanceof Error ? e.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|connect ETIMEDOUT|Client has encountered a connection error|Too many connections/i.test(msg);
}

/** `e` as REGISTRY_UNAVAILABLE when it is an outage; anything else unchanged. */
export function registryFailure(e: unknown, url: string): unknown {
  if (isCodedError(e) || !isRegistryUnavailable(e)) return e;
  return new ShoalError('REGISTRY_UNAVAILABLE', `the registry at ${redactUrl(url)} is unavailable (${codeOf(e) ?? 'connection failed'})`, {
    where: 'control_plane.tenant_url',
    hint: 'check that the registry database is running and reachable; retry the request',
    cause: e,
  });
}
