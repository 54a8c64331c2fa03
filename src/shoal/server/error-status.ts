import { SHOAL_ERROR_STATUS } from '../error-codes.js';
import { ShoalError } from '../errors.js';

/**
 * The HTTP status of anything thrown. A ShoalError's comes from the one table (error-codes.ts),
 * which has a row for every code, so there is no default. Anything else is a 500 whose text is
 * never echoed (an engine's raw message can contain row values): that includes a coded error
 * from core or tik that reached the edge unwrapped, which is a fault of ours, not the client's.
 */
export function httpStatusFor(e: unknown): number {
  return e instanceof ShoalError ? SHOAL_ERROR_STATUS[e.code] : 500;
}

export interface ErrorBody {
  error: { code: string; message: string; position?: { line: number; column: number }; hint?: string };
}

export function errorBody(e: unknown): ErrorBody {
  if (!(e instanceof ShoalError)) return { error: { code: 'INTERNAL', message: 'internal error; see the server log' } };
  const body: ErrorBody = { error: { code: e.code, message: e.message } };
  if (e.position) body.error.position = { line: e.position.line, column: e.position.column };
  if (e.hint) body.error.hint = e.hint;
  return body;
}
