/**
 * The session values a query sees: the identity's own (claims, a user's or token's stored
 * values), then `role_values` of the acting role for variables the identity did not set, then
 * the client's `vars` — only for variables the config marks `client_settable` and the identity
 * did not set. Any other client entry is refused (400), never silently used or dropped. The
 * operator and `provider: none` may set anything (they are trusted with the config already).
 */
import { VAR_NAME, canonicalVarName, type AuthConfig } from '../config/auth-config.js';
import { ShoalError } from '../errors.js';
import { setsAnyVar, type Principal } from './principal.js';

export function sessionValues(principal: Principal, roleId: string, client: Readonly<Record<string, string>>, auth: Pick<AuthConfig, 'session_vars'>): Readonly<Record<string, string>> {
  const identity: Record<string, string> = { ...principal.vars };
  for (const v of auth.session_vars) {
    const value = v.role_values[roleId];
    if (identity[v.name] === undefined && value !== undefined) identity[v.name] = value;
  }
  const out: Record<string, string> = { ...identity };
  const sent = new Set<string>();
  const trusted = setsAnyVar(principal);
  for (const [key, value] of Object.entries(client)) {
    if (!VAR_NAME.test(key)) {
      throw new ShoalError('VAR_INVALID', `"${key}" is not a session variable name`, { where: `vars.${key}`, hint: 'name variables provisa.<name> (letters, digits, _)' });
    }
    const name = canonicalVarName(key);
    if (sent.has(name)) throw new ShoalError('VAR_INVALID', `session variable ${name} is given twice in vars`, { where: `vars.${key}`, hint: 'send each variable once' });
    sent.add(name);
    if (!trusted) {
      if (principal.vars[name] !== undefined || (identity[name] !== undefined && !declaredSettable(auth, name))) {
        throw new ShoalError('VAR_NOT_SETTABLE', `session variable ${name} comes from your identity; a request cannot set it`, { where: `vars.${key}`, hint: `remove ${key} from vars` });
      }
      if (!declaredSettable(auth, name)) {
        throw new ShoalError('VAR_NOT_SETTABLE', `session variable ${name} is not client-settable`, { where: `vars.${key}`, hint: 'remove it from vars, or have an admin declare it under auth.session_vars with client_settable: true' });
      }
    }
    out[name] = value;
  }
  return out;
}

function declaredSettable(auth: Pick<AuthConfig, 'session_vars'>, name: string): boolean {
  return auth.session_vars.some((v) => v.name === name && v.client_settable);
}
