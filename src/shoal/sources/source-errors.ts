/**
 * Telling apart what a source failure means for the client:
 * - the source is down or refused us: SOURCE_UNAVAILABLE (503);
 * - the statement ran out of time at the source (PostgreSQL `statement_timeout`, MariaDB
 *   `max_statement_time`, MySQL `max_execution_time`): QUERY_TIMEOUT (504);
 * - the user's SQL hit a data error the source reports (a cast of 'abc' to int, a division by
 *   zero, a bad regular expression: SQLSTATE class 22 and MariaDB's regex error): SQL_DATA_EXCEPTION
 *   (400), naming the class of error only;
 * - anything else the source rejected: SOURCE_QUERY_FAILED (502), a mismatch between the registered
 *   schema and the source.
 * Raw driver text is kept as the cause, never put in the message: it can carry row values or
 * credentials.
 */
import { ShoalError } from '../errors.js';

const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH',
  'EPIPE', 'PROTOCOL_CONNECTION_LOST', 'ER_ACCESS_DENIED_ERROR', 'ER_BAD_DB_ERROR', 'ER_DBACCESS_DENIED_ERROR',
  'ENOENT', 'SQLITE_CANTOPEN', 'SQLITE_NOTADB', 'SQLITE_CORRUPT', 'SQLITE_BUSY',
]);

/** MariaDB ER_STATEMENT_TIMEOUT (max_statement_time) and MySQL ER_QUERY_TIMEOUT (max_execution_time). */
const MYSQL_TIMEOUT_ERRNOS = new Set([1969, 3024]);
/** MariaDB/MySQL ER_REGEXP_ERROR: a bad pattern in REGEXP / REGEXP_REPLACE. */
const MYSQL_REGEXP_ERRNO = 1139;

/** Names of the SQLSTATE class 22 conditions a query can hit (PostgreSQL and MariaDB share the codes). */
const DATA_EXCEPTIONS: Readonly<Record<string, string>> = {
  '22000': 'data exception',
  '22001': 'string data right truncation',
  '22003': 'numeric value out of range',
  '22004': 'null value not allowed',
  '22007': 'invalid datetime format',
  '22008': 'datetime field overflow',
  '22012': 'division by zero',
  '22015': 'interval field overflow',
  '22018': 'invalid character value for cast',
  '2201B': 'invalid regular expression',
  '2201E': 'invalid argument for logarithm',
  '2201F': 'invalid argument for power function',
  '2201G': 'invalid argument for width bucket function',
  '2201W': 'invalid row count in LIMIT clause',
  '2201X': 'invalid row count in result offset clause',
  '22019': 'invalid escape character',
  '22023': 'invalid parameter value',
  '22025': 'invalid escape sequence',
  '2202E': 'array subscript error',
  '22P02': 'invalid text representation',
  '22P05': 'untranslatable character',
  '22021': 'character not in repertoire',
  '22030': 'duplicate JSON object key value',
  '22032': 'invalid JSON text',
};

function codeOf(e: unknown): string | undefined {
  if (e !== null && typeof e === 'object' && 'code' in e) {
    const c = (e as { code: unknown }).code;
    return typeof c === 'string' ? c : undefined;
  }
  return undefined;
}

function field<T>(e: unknown, key: string, type: 'string' | 'number'): T | undefined {
  if (e !== null && typeof e === 'object' && key in e) {
    const v = (e as Record<string, unknown>)[key];
    return typeof v === type ? (v as T) : undefined;
  }
  return undefined;
}

/** The SQLSTATE of a driver error: pg puts it in `code`, mysql2 in `sqlState`. */
function sqlStateOf(e: unknown): string | undefined {
  const mysql = field<string>(e, 'sqlState', 'string');
  if (mysql !== undefined) return mysql;
  const code = codeOf(e);
  return code !== undefined && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
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

/** True when the source stopped the statement because it ran past its statement timeout. */
export function isStatementTimeout(e: unknown): boolean {
  const errno = field<number>(e, 'errno', 'number');
  if (errno !== undefined && MYSQL_TIMEOUT_ERRNOS.has(errno)) return true;
  // PostgreSQL: query_canceled (57014) is both a timeout and a cancel request; the text tells which.
  return codeOf(e) === '57014' && /statement timeout/i.test(e instanceof Error ? e.message : '');
}

/**
 * PostgreSQL SQLSTATEs (and MariaDB errnos) of a statement refused for a grouping, aggregate or
 * typing mistake: the only source rejections worth checking against the client's SQL alone. Any
 * other refusal (a permission, a missing table, a cancel) is the source's, even when the engine
 * would refuse the same SQL for a rule of its own (PostgreSQL accepts a column functionally
 * dependent on a grouped primary key; DuckDB does not).
 */
const PG_CLIENT_SQL_STATES = new Set(['42803', '42883', '42804', '42P18', '42725', '42P20']);
const MYSQL_CLIENT_SQL_ERRNOS = new Set([1055, 1056, 1111, 1140, 1463]);
const SQLITE_CLIENT_SQL = /misuse of (aggregate|window) function|wrong number of arguments to function/i;

/** True when a source refused the statement for a grouping, aggregate or typing mistake (see above). */
export function isClientSqlRejection(e: unknown): boolean {
  const errno = field<number>(e, 'errno', 'number');
  if (errno !== undefined) return MYSQL_CLIENT_SQL_ERRNOS.has(errno);
  const state = sqlStateOf(e);
  if (state !== undefined) return PG_CLIENT_SQL_STATES.has(state);
  return codeOf(e) === 'SQLITE_ERROR' && SQLITE_CLIENT_SQL.test(e instanceof Error ? e.message : '');
}

/** The class of data error the user's SQL hit at the source, or undefined when it is not one. */
export function dataExceptionOf(e: unknown): { readonly sqlState: string; readonly name: string } | undefined {
  if (field<number>(e, 'errno', 'number') === MYSQL_REGEXP_ERRNO) return { sqlState: '2201B', name: 'invalid regular expression' };
  const state = sqlStateOf(e);
  if (state === undefined || !state.startsWith('22')) return undefined;
  return { sqlState: state, name: DATA_EXCEPTIONS[state] ?? 'data exception' };
}

/**
 * The error for a data error the client's SQL hit at a source or in the engine (`at`): a client
 * error (400) naming the class and SQLSTATE only, never the value or the raw text.
 */
export function dataException(at: string, sqlState: string, cause: unknown, where?: string): ShoalError {
  return new ShoalError('SQL_DATA_EXCEPTION', `the query hit a data error at ${at}: ${DATA_EXCEPTIONS[sqlState] ?? 'data exception'} (SQLSTATE ${sqlState})`, {
    ...(where === undefined ? {} : { where }),
    hint: 'check the casts, divisions, patterns and literals in the query against the values they apply to',
    cause,
  });
}

/** Wrap a driver failure into the right ShoalError, naming the source. */
export function sourceFailure(sourceId: string, e: unknown, action: string): ShoalError {
  if (e instanceof ShoalError) return e;
  const code = codeOf(e);
  if (isUnavailable(e)) {
    return new ShoalError('SOURCE_UNAVAILABLE', `source "${sourceId}" is unavailable (${code ?? 'connection failed'}) while ${action}`, {
      where: `sources.${sourceId}`,
      hint: 'check that the source is running and reachable, and its host, port, database and credentials',
      cause: e,
    });
  }
  if (isStatementTimeout(e)) {
    return new ShoalError('QUERY_TIMEOUT', `source "${sourceId}" stopped the statement at its statement timeout while ${action}`, {
      where: `sources.${sourceId}`,
      hint: 'narrow the query, or ask the operator about server.limits.request_timeout',
      cause: e,
    });
  }
  const data = dataExceptionOf(e);
  if (data !== undefined) return dataException(`source "${sourceId}"`, data.sqlState, e, `sources.${sourceId}`);
  return new ShoalError('SOURCE_QUERY_FAILED', `source "${sourceId}" rejected the statement while ${action}${code ? ` (${code})` : ''}`, {
    where: `sources.${sourceId}`,
    hint: 'check that the registered schema, table and columns exist at the source',
    cause: e,
  });
}
