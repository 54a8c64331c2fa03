import { CodedError, type ErrorDetails } from '../core/errors.js';

/**
 * Every deliberate shoal failure. The code is stable; `httpStatus` maps codes to HTTP status in
 * one table (src/shoal/server) rather than at each throw.
 */
export class ShoalError extends CodedError {
  constructor(code: string, message: string, details: ErrorDetails = {}) {
    super(code, message, details);
  }
}
