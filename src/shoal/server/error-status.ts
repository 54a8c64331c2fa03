import { isCodedError } from '../../core/errors.js';

/**
 * The one table that maps error codes to HTTP status. Codes not listed are client errors when
 * they are ours (400), and anything that is not a ShoalError is a 500 whose text is never echoed
 * (an engine's raw message can contain row values).
 */
const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  SQL_SYNTAX: 400,
  SQL_NOT_SELECT: 400,
  SQL_UNSUPPORTED: 400,
  SQL_UNKNOWN_TABLE: 404,
  SQL_UNKNOWN_COLUMN: 400,
  SQL_UNKNOWN_ROLE: 403,
  SQL_MISSING_VAR: 400,
  ROLE_REQUIRED: 400,
  AUTH_REQUIRED: 401,
  AUTH_INVALID: 401,
  AUTH_UNAVAILABLE: 503,
  ROLE_NOT_GRANTED: 403,
  CAPABILITY_MISSING: 403,
  VAR_NOT_SETTABLE: 400,
  VAR_INVALID: 400,
  IDENTITY_EXISTS: 409,
  ROLE_UNKNOWN: 403,
  FORBIDDEN: 403,
  BAD_REQUEST: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  MV_REJECTED: 422,
  DERIVED_CYCLE: 422,
  VIEW_LAUNDERS_ROWS: 422,
  ADMIN_SOURCES_DISABLED: 403,
  ADMIN_PATH_REFUSED: 403,
  ADMIN_HOST_REFUSED: 403,
  ADMIN_ENV_REFUSED: 403,
  ADMIN_PROTECTED_TARGET: 403,
  SOURCE_UNAVAILABLE: 503,
  NOT_READY: 503,
  QUERY_CANCELLED: 499,
  QUERY_TIMEOUT: 504,
  QUERY_MEMORY_LIMIT: 503,
  SQL_TOO_LARGE: 413,
  SQL_TOO_MANY_LITERALS: 400,
  SQL_TOO_MANY_TOKENS: 400,
  SQL_TOO_DEEP: 400,
  SQL_DATA_EXCEPTION: 400,
  TOO_MANY_CONCURRENT_QUERIES: 429,
  PLANNER_BUSY: 503,
  REGISTRY_INVALID: 400,
  REGISTRY_PLAINTEXT_SECRET: 400,
  REGISTRY_NOT_FOUND: 404,
  REGISTRY_IN_USE: 409,
  REGISTRY_UNAVAILABLE: 503,
  REGISTRY_REPLACED: 503,
  REGISTRY_CORRUPT: 503,
  REGISTRY_VERSION: 503,
  ENGINE_UNAVAILABLE: 503,
  ENGINE_EXTENSION_UNAVAILABLE: 503,
  // the deployment cannot reach the source with this engine: for an operator to fix (docs: Engines)
  ENGINE_SOURCE_UNREACHABLE: 503,
  SOURCE_QUERY_FAILED: 502,
  SOURCE_TYPE_MISMATCH: 502,
  HOST_NOT_ALLOWED: 421,
  CORS_NOT_ALLOWED: 403,
};

export function httpStatusFor(e: unknown): number {
  if (!isCodedError(e)) return 500;
  return STATUS_BY_CODE[e.code] ?? (e.code.startsWith('INTERNAL') ? 500 : 400);
}

export interface ErrorBody {
  error: { code: string; message: string; position?: { line: number; column: number }; hint?: string };
}

export function errorBody(e: unknown): ErrorBody {
  if (!isCodedError(e)) return { error: { code: 'INTERNAL', message: 'internal error; see the server log' } };
  const body: ErrorBody = { error: { code: e.code, message: e.message } };
  if (e.position) body.error.position = { line: e.position.line, column: e.position.column };
  if (e.hint) body.error.hint = e.hint;
  return body;
}
