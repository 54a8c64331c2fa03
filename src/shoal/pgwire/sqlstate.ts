/**
 * The SQLSTATE a shoal error travels under on the wire, so PostgreSQL clients react to it as
 * they would to PostgreSQL (57014 for a cancel, 28P01 for a wrong password, 42P01 for an unknown
 * table…). Codes without their own row take the class of their HTTP status. The shoal code itself
 * is kept in the message (`CODE: message`), as the CLI prints it.
 */
import { SHOAL_ERROR_STATUS, type ShoalErrorCode } from '../error-codes.js';
import { ShoalError } from '../errors.js';
import type { ErrorFields } from './message-writer.js';
import { PgProtocolError } from './pg-protocol-error.js';

const BY_CODE: Partial<Record<ShoalErrorCode, string>> = {
  AUTH_INVALID: '28P01',
  AUTH_REQUIRED: '28000',
  BAD_REQUEST: '08P01',
  CAPABILITY_MISSING: '42501',
  NOT_READY: '57P03',
  QUERY_CANCELLED: '57014',
  QUERY_MEMORY_LIMIT: '53200',
  QUERY_TIMEOUT: '57014',
  ROLE_NOT_GRANTED: '42501',
  ROLE_REQUIRED: '28000',
  ROLE_UNKNOWN: '42704',
  SOURCE_TABLE_NOT_FOUND: '42P01',
  SQL_AMBIGUOUS_TABLE: '42P09',
  SQL_BAD_ARGUMENTS: '42883',
  SQL_DATA_EXCEPTION: '22000',
  SQL_EMPTY: '42601',
  SQL_FUNCTION_NOT_ALLOWED: '42501',
  SQL_LITERAL_NOT_ALLOWED: '42601',
  SQL_MISSING_VAR: '42704',
  SQL_MULTIPLE_STATEMENTS: '42601',
  SQL_NOT_SELECT: '25006',
  SQL_SYNTAX: '42601',
  SQL_TOO_DEEP: '54001',
  SQL_TOO_LARGE: '54000',
  SQL_TOO_MANY_LITERALS: '54000',
  SQL_TOO_MANY_TOKENS: '54000',
  SQL_UNKNOWN_COLUMN: '42703',
  SQL_UNKNOWN_ROLE: '42501',
  SQL_UNKNOWN_TABLE: '42P01',
  SQL_UNSUPPORTED: '0A000',
  TOO_MANY_CONCURRENT_QUERIES: '53300',
  VAR_INVALID: '22023',
  VAR_NOT_SETTABLE: '42501',
};

const BY_STATUS: Readonly<Record<number, string>> = {
  400: '42000',
  401: '28000',
  403: '42501',
  404: '42704',
  409: '55000',
  412: '55000',
  413: '54000',
  421: '08004',
  422: '42000',
  429: '53300',
  499: '57014',
  500: 'XX000',
  502: '58000',
  503: '58000',
  504: '57014',
};

export function sqlstateOf(code: ShoalErrorCode): string {
  return BY_CODE[code] ?? BY_STATUS[SHOAL_ERROR_STATUS[code]] ?? 'XX000';
}

/** A PostgreSQL "SQLSTATE 22012"-style code named in a SQL_DATA_EXCEPTION message, when there is one. */
function namedDataState(message: string): string | undefined {
  return /\b(22[0-9A-Z]{3})\b/.exec(message)?.[1];
}

/** 1-based character offset of a line/column position in `sql`. */
function characterPosition(sql: string, line: number, column: number): number | undefined {
  const lines = sql.split('\n');
  if (line < 1 || line > lines.length) return undefined;
  let offset = 0;
  for (let i = 0; i < line - 1; i++) offset += [...lines[i]!].length + 1;
  return offset + column;
}

/**
 * The ErrorResponse fields of anything thrown while serving `sql`. A non-shoal error's text is
 * never sent (it can hold row values): it is `internal error; see the server log`, XX000.
 */
export function errorFieldsOf(e: unknown, sql?: string, severity: 'ERROR' | 'FATAL' = 'ERROR', offset = 0): ErrorFields {
  if (e instanceof PgProtocolError) return { severity, sqlstate: e.sqlstate, message: e.message };
  if (!(e instanceof ShoalError)) return { severity, sqlstate: 'XX000', message: 'INTERNAL: internal error; see the server log' };
  const sqlstate = e.code === 'SQL_DATA_EXCEPTION' ? (namedDataState(e.message) ?? '22000') : sqlstateOf(e.code);
  const position = e.position && sql !== undefined ? characterPosition(sql, e.position.line, e.position.column) : undefined;
  return {
    severity,
    sqlstate,
    message: `${e.code}: ${e.message}`,
    ...(e.hint ? { hint: e.hint } : {}),
    ...(position !== undefined ? { position: position + offset } : {}),
  };
}
