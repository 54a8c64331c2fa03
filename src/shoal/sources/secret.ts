/**
 * Secrets stay as `${env:VAR}` / `${env:VAR:-default}` references in the registry and are resolved
 * only here, at connect time, from the environment the instance was started with.
 */
import { ShoalError } from '../errors.js';

const REF = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?\}$/s;

/**
 * Resolve one configured value: a `${env:VAR}` reference becomes the variable's value (or its
 * default); anything else is returned as written. `where` names the config key for errors.
 */
export function resolveSecret(
  value: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  where: string,
): string | undefined {
  if (value === undefined) return undefined;
  const m = REF.exec(value);
  if (m === null) return value;
  const name = m[1] as string;
  const fromEnv = env[name];
  if (fromEnv !== undefined) return fromEnv;
  if (m[2] !== undefined) return m[2];
  throw new ShoalError('SOURCE_SECRET_UNSET', `environment variable ${name} is not set`, {
    where,
    hint: `export ${name} before starting shoal, or write \${env:${name}:-default} in the config`,
  });
}
