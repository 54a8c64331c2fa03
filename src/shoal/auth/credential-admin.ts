/**
 * Creating access tokens and basic users, shared by the CLI (`shoal token|user …`) and the admin
 * API (`/admin/tokens`, `/admin/users`): every input is checked once here, against the roles
 * registered now. A token's secret exists only in the value returned by `issueToken`.
 */
import { VAR_NAME, canonicalVarName } from '../config/auth-config.js';
import { deepFreeze, type RoleConfig } from '../config/model.js';
import { ShoalError } from '../errors.js';
import type { IdentityStore, TokenRecord, UserRecord } from '../registry/identity-store.js';
import { mintToken } from './access-token.js';
import { hashPassword, type ScryptParams } from './password-hash.js';

export interface GrantSpec {
  readonly roles: readonly string[];
  readonly defaultRole?: string;
  readonly vars?: Readonly<Record<string, string>>;
}

export interface TokenSpec extends GrantSpec {
  readonly name: string;
  /** ISO instant; absent = never expires. */
  readonly expiresAt?: string;
  /** The principal creating it. */
  readonly createdBy: string;
}

export interface UserSpec extends GrantSpec {
  readonly username: string;
  readonly password: string;
}

const USERNAME = /^[A-Za-z0-9._@-]{1,128}$/;
const MAX_VARS = 64;

function checkGrants(spec: GrantSpec, roles: readonly RoleConfig[], what: string): { roles: string[]; defaultRole?: string; vars: Record<string, string> } {
  if (spec.roles.length === 0) throw new ShoalError('BAD_REQUEST', `a ${what} needs at least one role`, { hint: 'name the roles it may act as (--role R, repeatable)' });
  const known = new Set(roles.map((r) => r.id));
  for (const r of spec.roles) {
    if (!known.has(r)) throw new ShoalError('BAD_REQUEST', `role "${r}" is not registered`, { where: 'roles', hint: 'grant registered roles only (see the config\'s roles:)' });
  }
  if (spec.defaultRole !== undefined && !spec.roles.includes(spec.defaultRole)) {
    throw new ShoalError('BAD_REQUEST', `the default role "${spec.defaultRole}" is not among its roles`, { where: 'default_role', hint: 'pick one of the granted roles' });
  }
  const entries = Object.entries(spec.vars ?? {});
  if (entries.length > MAX_VARS) throw new ShoalError('BAD_REQUEST', `at most ${MAX_VARS} session values`, { where: 'vars' });
  const vars: Record<string, string> = {};
  for (const [k, v] of entries) {
    if (!VAR_NAME.test(k) || typeof v !== 'string' || v.length > 4096) throw new ShoalError('BAD_REQUEST', `session value "${k}" is not a name=string pair`, { where: `vars.${k}`, hint: 'write provisa.<name>=<value>' });
    vars[canonicalVarName(k)] = v;
  }
  return { roles: [...new Set(spec.roles)], ...(spec.defaultRole === undefined ? {} : { defaultRole: spec.defaultRole }), vars };
}

/** Create a token; returns the stored record and, once, its secret. */
export async function issueToken(store: IdentityStore, spec: TokenSpec, roles: readonly RoleConfig[], now: Date = new Date()): Promise<{ readonly token: TokenRecord; readonly secret: string }> {
  const name = spec.name.trim();
  if (name === '' || name.length > 100) throw new ShoalError('BAD_REQUEST', 'a token needs a name of 1 to 100 characters', { where: 'name', hint: 'name it for who or what uses it, e.g. "nightly-report"' });
  if (spec.expiresAt !== undefined) {
    const at = Date.parse(spec.expiresAt);
    if (!Number.isFinite(at)) throw new ShoalError('BAD_REQUEST', `expiry "${spec.expiresAt}" is not an instant`, { where: 'expires_at', hint: 'write an ISO instant, e.g. 2027-01-01T00:00:00Z' });
    if (at <= now.getTime()) throw new ShoalError('BAD_REQUEST', `expiry ${spec.expiresAt} is in the past`, { where: 'expires_at' });
  }
  const grants = checkGrants(spec, roles, 'token');
  const minted = mintToken();
  const token: TokenRecord = deepFreeze({
    id: minted.id,
    name,
    secretSha256: minted.secretSha256,
    ...grants,
    createdBy: spec.createdBy,
    createdAt: now.toISOString(),
    ...(spec.expiresAt === undefined ? {} : { expiresAt: new Date(Date.parse(spec.expiresAt)).toISOString() }),
  });
  await store.addToken(token);
  return { token, secret: minted.secret };
}

/** Add a basic user; the password is hashed here and never kept. */
export async function addUser(store: IdentityStore, spec: UserSpec, roles: readonly RoleConfig[], params?: ScryptParams, now: Date = new Date()): Promise<UserRecord> {
  if (!USERNAME.test(spec.username)) throw new ShoalError('BAD_REQUEST', 'a username is 1 to 128 letters, digits, ".", "_", "@" or "-"', { where: 'username' });
  if (spec.password.length < 8 || spec.password.length > 1024) throw new ShoalError('BAD_REQUEST', 'a password is 8 to 1024 characters', { where: 'password', hint: 'choose a longer password' });
  const grants = checkGrants(spec, roles, 'user');
  const user: UserRecord = deepFreeze({ username: spec.username, passwordHash: await hashPassword(spec.password, params), ...grants, createdAt: now.toISOString() });
  await store.addUser(user);
  return user;
}

/** What listing shows of a token: never the secret's hash. */
export function publicToken(t: TokenRecord) {
  return {
    id: t.id,
    name: t.name,
    roles: t.roles,
    default_role: t.defaultRole ?? null,
    vars: t.vars,
    created_by: t.createdBy,
    created_at: t.createdAt,
    expires_at: t.expiresAt ?? null,
    revoked_at: t.revokedAt ?? null,
  };
}

/** What listing shows of a user: never the password hash. */
export function publicUser(u: UserRecord) {
  return { username: u.username, roles: u.roles, default_role: u.defaultRole ?? null, vars: u.vars, created_at: u.createdAt };
}
