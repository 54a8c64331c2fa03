import { CodedError, type ErrorDetails } from '../core/errors.js';

/**
 * Every deliberate tik failure. Codes are stable (tests and exit codes rely on them) and mirror
 * upstream's keywords where one exists, e.g. `edn/malformed`, `canonical/unsupported-type`,
 * `event/unwritable`, `guard/malformed`.
 */
export class TikError extends CodedError {
  constructor(code: string, message: string, details: ErrorDetails = {}) {
    super(code, message, details);
  }
}
