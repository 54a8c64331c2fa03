import { CodedError, type ErrorDetails } from '../core/errors.js';
import type { TikErrorCode } from './error-codes.js';

/**
 * Every deliberate tik failure. Codes are stable (tests and exit codes rely on them) and mirror
 * upstream's keywords where one exists, e.g. `edn/malformed`, `canonical/unsupported-type`,
 * `event/unwritable`, `guard/malformed`.
 */
export class TikError extends CodedError {
  declare readonly code: TikErrorCode;

  /** `code` is one of the closed union (./error-codes.ts); the compiler refuses any other. */
  constructor(code: TikErrorCode, message: string, details: ErrorDetails = {}) {
    super(code, message, details);
  }
}
