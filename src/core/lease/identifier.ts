import { CodedError } from '../errors.js';

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Lease SQL splices table and column names into statements, so only plain identifiers are allowed. */
export function checkIdentifier(name: string, what: string): string {
  if (!IDENT.test(name)) {
    throw new CodedError('LEASE_BAD_IDENTIFIER', `${what} "${name}" is not a plain SQL identifier`, {
      hint: 'use letters, digits and underscores, starting with a letter or underscore',
    });
  }
  return name;
}
