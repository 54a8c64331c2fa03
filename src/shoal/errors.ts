import { CodedError, type ErrorDetails } from '../core/errors.js';
import { isShoalErrorCode, type ShoalErrorCode } from './error-codes.js';

export type { ShoalErrorCode } from './error-codes.js';

/**
 * Every deliberate shoal failure. The code is one of the closed union in error-codes.ts, whose
 * table gives its HTTP status (src/shoal/server maps it at the edge rather than at each throw).
 */
export class ShoalError extends CodedError<ShoalErrorCode> {
  constructor(code: ShoalErrorCode, message: string, details: ErrorDetails = {}) {
    super(code, message, details);
  }
}

/**
 * A ShoalError for a code read back from elsewhere (the planner thread, an engine's report): a code
 * outside the union (a core or tik error that got there) becomes INTERNAL, a 500, and keeps the
 * original code in the message.
 */
export function shoalErrorFrom(code: string, message: string, details: ErrorDetails = {}): ShoalError {
  return isShoalErrorCode(code) ? new ShoalError(code, message, details) : new ShoalError('INTERNAL', `${code}: ${message}`, details);
}
