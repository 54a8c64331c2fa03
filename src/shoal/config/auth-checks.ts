/**
 * Normalise and check the `auth:` key. Fails closed: a provider that can't verify anything (oidc
 * without an issuer's keys), a symmetric or `none` JWT algorithm, or a JWKS fetched in clear text
 * from another machine is an error with its key path, never a warning.
 */
import type { RawAuth } from './config-schema.js';
import { child, item, type ConfigIssue } from './config-issue.js';
import {
  ASYMMETRIC_ALGORITHMS,
  DEFAULT_AUTH,
  OIDC_DEFAULTS,
  VAR_NAME,
  canonicalVarName,
  type AuthConfig,
  type JwtAlgorithm,
  type OidcConfig,
  type SessionVarConfig,
} from './auth-config.js';
import { deepFreeze, dropUndefined } from './model.js';

export interface AuthCheck {
  readonly auth: AuthConfig;
  readonly errors: readonly ConfigIssue[];
  readonly warnings: readonly ConfigIssue[];
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** `roleIds`: the roles the config declares (a mapping to any other role is a warning: it may be registered later). */
export function checkAuth(raw: Partial<RawAuth> | undefined, roleIds: readonly string[]): AuthCheck {
  if (raw === undefined) return { auth: DEFAULT_AUTH, errors: [], warnings: [] };
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const provider = raw.provider ?? 'basic';
  const known = new Set(roleIds);
  const checkRole = (path: string, role: string): void => {
    if (!known.has(role)) {
      warnings.push({ code: 'CONFIG_AUTH_UNKNOWN_ROLE', path, message: `role "${role}" is not declared under roles:`, hint: 'declare the role, or register it before anyone signs in with it' });
    }
  };

  let oidc: OidcConfig | undefined;
  if (raw.oidc) oidc = checkOidc(raw.oidc, errors);
  else if (provider === 'oidc') {
    errors.push({ code: 'CONFIG_AUTH_OIDC', path: 'auth.oidc', message: 'provider oidc needs an oidc: block (issuer, audience, jwks_url or jwks_file)', hint: 'add auth.oidc with the issuer, the audience and where its keys are' });
  }

  const role_mapping = (raw.role_mapping ?? []).map((r, i) => {
    const path = item('auth.role_mapping', i);
    if ((r.value === undefined) === (r.contains === undefined)) {
      errors.push({ code: 'CONFIG_AUTH_RULE', path, message: 'a role mapping rule needs exactly one of value (the claim equals it) or contains (the claim is a list holding it)', hint: 'write value: X or contains: X' });
    }
    checkRole(child(path, 'provisa_role'), r.provisa_role);
    return deepFreeze(dropUndefined({ ...r }));
  });
  if (raw.default_role !== undefined) checkRole('auth.default_role', raw.default_role);
  const default_assignments = (raw.default_assignments ?? []).map((a, i) => {
    checkRole(child(item('auth.default_assignments', i), 'role_id'), a.role_id);
    return deepFreeze({ role_id: a.role_id, domain_id: a.domain_id ?? '*' });
  });

  const seen = new Set<string>();
  const session_vars: SessionVarConfig[] = (raw.session_vars ?? []).map((v, i) => {
    const path = item('auth.session_vars', i);
    if (!VAR_NAME.test(v.name)) {
      errors.push({ code: 'CONFIG_AUTH_VAR', path: child(path, 'name'), message: `"${v.name}" is not a session variable name`, hint: 'write provisa.<name> (letters, digits, _)' });
    }
    const name = canonicalVarName(v.name);
    if (seen.has(name)) errors.push({ code: 'CONFIG_AUTH_VAR', path: child(path, 'name'), message: `session variable ${name} is declared twice`, hint: 'declare each variable once' });
    seen.add(name);
    for (const role of Object.keys(v.role_values ?? {})) checkRole(child(child(path, 'role_values'), role), role);
    return deepFreeze(dropUndefined({ name, claim: v.claim, role_values: { ...(v.role_values ?? {}) }, client_settable: v.client_settable ?? false }));
  });

  if (provider === 'none') {
    warnings.push({
      code: 'CONFIG_AUTH_NONE',
      path: 'auth.provider',
      message: 'authentication is off: any client that reaches the port may act as any role and set any session variable',
      hint: 'use provider: oidc or basic (with tokens) anywhere but a single-user machine',
    });
  }
  const auth: AuthConfig = deepFreeze(
    dropUndefined({ provider, declared: true, oidc, role_mapping, default_role: raw.default_role, default_assignments, session_vars }),
  ) as AuthConfig;
  return { auth, errors, warnings };
}

function checkOidc(raw: NonNullable<RawAuth['oidc']>, errors: ConfigIssue[]): OidcConfig | undefined {
  const at = (k: string) => child('auth.oidc', k);
  if ((raw.jwks_url === undefined) === (raw.jwks_file === undefined)) {
    errors.push({ code: 'CONFIG_AUTH_OIDC', path: 'auth.oidc', message: 'name exactly one of jwks_url (the issuer publishes its keys) or jwks_file (a local JWKS)', hint: 'jwks_url: https://issuer.example/.well-known/jwks.json' });
  }
  if (raw.jwks_url !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(raw.jwks_url);
    } catch {
      errors.push({ code: 'CONFIG_AUTH_OIDC', path: at('jwks_url'), message: `"${raw.jwks_url}" is not a URL`, hint: 'write the full https:// URL of the issuer\'s JWKS' });
    }
    // keys fetched in clear text from another machine can be swapped in transit: https, or loopback
    if (url && url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
      errors.push({ code: 'CONFIG_AUTH_OIDC', path: at('jwks_url'), message: `the JWKS must be fetched over https (got ${url.protocol}//${url.host})`, hint: 'use the issuer\'s https URL (plain http only on localhost)' });
    }
  }
  const algorithms: JwtAlgorithm[] = [];
  (raw.algorithms ?? OIDC_DEFAULTS.algorithms).forEach((a, i) => {
    if ((ASYMMETRIC_ALGORITHMS as readonly string[]).includes(a)) algorithms.push(a as JwtAlgorithm);
    else {
      errors.push({
        code: 'CONFIG_AUTH_ALGORITHM',
        path: item(at('algorithms'), i),
        message: /^(none|hs\d+)$/i.test(a)
          ? `"${a}" is refused: tokens must be signed with the issuer's private key (a symmetric or unsigned token proves nothing here)`
          : `unknown JWT algorithm "${a}"`,
        hint: `use asymmetric algorithms: ${ASYMMETRIC_ALGORITHMS.join(', ')}`,
      });
    }
  });
  const audience = typeof raw.audience === 'string' ? [raw.audience] : [...raw.audience];
  return deepFreeze(
    dropUndefined({
      issuer: raw.issuer,
      audience,
      jwks_url: raw.jwks_url,
      jwks_file: raw.jwks_file,
      algorithms,
      clock_skew_seconds: raw.clock_skew_seconds ?? OIDC_DEFAULTS.clock_skew_seconds,
      role_claim: raw.role_claim ?? OIDC_DEFAULTS.role_claim,
      subject_claim: raw.subject_claim ?? OIDC_DEFAULTS.subject_claim,
      jwks_cache_seconds: raw.jwks_cache_seconds ?? OIDC_DEFAULTS.jwks_cache_seconds,
      jwks_cooldown_seconds: raw.jwks_cooldown_seconds ?? OIDC_DEFAULTS.jwks_cooldown_seconds,
    }),
  ) as OidcConfig;
}
