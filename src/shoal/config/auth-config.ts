/**
 * The `auth:` key of the config (law S7): how a network caller proves who it is, which roles that
 * identity is granted, and where the session values RLS reads come from. Key names follow upstream
 * provisa where it has them (`provider`, `role_mapping`, `default_role`, `default_assignments`,
 * `role_claim`); the rest is shoal's.
 *
 * An absent `auth:` key means authentication is required: users and tokens of the registry
 * (`provider: basic`). No authentication happens only when the config says `provider: none`.
 */
import { deepFreeze } from './model.js';

/** `oauth` (upstream's generic OIDC provider) is read as `oidc`. */
export const AUTH_PROVIDERS = ['none', 'oidc', 'basic'] as const;
export type AuthProvider = (typeof AUTH_PROVIDERS)[number];

/** JWT algorithms a verifier may accept: asymmetric only (no `none`, no HMAC: an HS/RS confusion can't start). */
export const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
export type JwtAlgorithm = (typeof ASYMMETRIC_ALGORITHMS)[number];

export const DEFAULT_ALGORITHMS: readonly JwtAlgorithm[] = ['RS256', 'ES256'];

export interface OidcConfig {
  /** The `iss` every token must carry. */
  readonly issuer: string;
  /** Accepted `aud` values (a token must name at least one). */
  readonly audience: readonly string[];
  /** JWKS over HTTP(S): re-fetched on an unknown `kid` and when the cache ages out (key rotation). */
  readonly jwks_url?: string;
  /** JWKS in a local file: read at every verification, so a change (rotation) applies at once. */
  readonly jwks_file?: string;
  readonly algorithms: readonly JwtAlgorithm[];
  /** Tolerance for `exp` / `nbf` (seconds). */
  readonly clock_skew_seconds: number;
  /** The claim holding role ids (`role` or upstream's `role:domain`), a string or a list. */
  readonly role_claim: string;
  /** The claim naming the subject (default `sub`). */
  readonly subject_claim: string;
  /** How long fetched keys are used before re-fetching (seconds). */
  readonly jwks_cache_seconds: number;
  /** Minimum time between re-fetches triggered by unknown key ids (seconds). */
  readonly jwks_cooldown_seconds: number;
}

/** Upstream's claim rules: `claim` equal to `value`, or a list `claim` that `contains` a value. */
export interface RoleMappingRule {
  readonly claim: string;
  readonly value?: string;
  readonly contains?: string;
  readonly provisa_role: string;
}

/** A role granted to every identity the provider signs in, optionally limited to one domain (`'*'` = all). */
export interface RoleAssignment {
  readonly role_id: string;
  readonly domain_id: string;
}

/**
 * Where one session variable comes from. Identity values (a claim, a user's or token's stored
 * values) win over `role_values`; a client may send it only when `client_settable` and the identity
 * did not set it.
 */
export interface SessionVarConfig {
  /** Canonical form: lower case, `provisa.` prefixed (see `canonicalVarName`). */
  readonly name: string;
  /** OIDC: the claim (dotted path) holding the value. */
  readonly claim?: string;
  /** The value when acting as a role (role id → value). */
  readonly role_values: Readonly<Record<string, string>>;
  readonly client_settable: boolean;
}

export interface AuthConfig {
  readonly provider: AuthProvider;
  /** Whether `auth:` was written at all (absent = the required-authentication default). */
  readonly declared: boolean;
  readonly oidc?: OidcConfig;
  readonly role_mapping: readonly RoleMappingRule[];
  /** Granted (and used when a request names no role) when no rule and no role claim grants one. */
  readonly default_role?: string;
  readonly default_assignments: readonly RoleAssignment[];
  readonly session_vars: readonly SessionVarConfig[];
}

/** Absent `auth:`: authentication required, users and tokens of the registry. */
export const DEFAULT_AUTH: AuthConfig = deepFreeze({
  provider: 'basic',
  declared: false,
  role_mapping: [],
  default_assignments: [],
  session_vars: [],
});

export const OIDC_DEFAULTS = deepFreeze({
  algorithms: DEFAULT_ALGORITHMS,
  clock_skew_seconds: 60,
  role_claim: 'roles',
  subject_claim: 'sub',
  jwks_cache_seconds: 600,
  jwks_cooldown_seconds: 30,
});

const VAR_PREFIX = 'provisa.';

/**
 * The one spelling of a session variable: `current_setting` matches names case-insensitively and
 * with or without the `provisa.` prefix, so `USER_REGION` and `provisa.user_region` are one variable
 * and must be one key when identity and client values are merged.
 */
export function canonicalVarName(name: string): string {
  const n = name.trim().toLowerCase();
  return n.startsWith(VAR_PREFIX) ? n : `${VAR_PREFIX}${n}`;
}

/** A session-variable name: `provisa.` optional, then letters, digits and `_` (`.` between words). */
export const VAR_NAME = /^(provisa\.)?[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/i;
