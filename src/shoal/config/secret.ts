/**
 * Secrets (source passwords) are kept as `${env:VAR}` references in the model and the registry and
 * resolved only when a connector connects. A literal secret is refused at load and at registration:
 * the registry must never hold one in plain text.
 */
import { ShoalError } from '../errors.js';

const SECRET_REFERENCE = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** Whether `value` is exactly one `${env:VAR}` reference with no default (a default would be plain text). */
export function isSecretReference(value: string): boolean {
  return SECRET_REFERENCE.test(value);
}

/** The variable a secret reference names. */
export function secretVariable(value: string): string | undefined {
  return SECRET_REFERENCE.exec(value)?.[1];
}

/**
 * Resolve a secret reference at connect time. Throws SECRET_UNRESOLVED when the variable is unset
 * and SECRET_PLAINTEXT when the value is not a reference at all.
 */
export function resolveSecret(reference: string, env: Readonly<Record<string, string | undefined>> = process.env, where?: string): string {
  const name = secretVariable(reference);
  if (name === undefined) {
    throw new ShoalError('SECRET_PLAINTEXT', 'a secret must be an ${env:VAR} reference, not a literal value', {
      ...(where === undefined ? {} : { where }),
      hint: 'write password: ${env:SOME_VAR} and set SOME_VAR in the environment of every instance',
    });
  }
  const value = env[name];
  if (value === undefined) {
    throw new ShoalError('SECRET_UNRESOLVED', `environment variable ${name} is not set`, {
      ...(where === undefined ? {} : { where }),
      hint: `set ${name} in the environment of this instance`,
    });
  }
  return value;
}
