/**
 * Turn a request's `Authorization` header into a Principal (law S7), the one place credentials
 * are checked:
 *
 * - `Bearer shoal_pat_…`: an access token of the registry, under every provider;
 * - `Bearer <JWT>`: verified against the OIDC issuer (`provider: oidc`);
 * - `Basic …`: a registry user's password (`provider: basic`, the default);
 * - nothing: the anonymous principal under `provider: none`, else AUTH_REQUIRED.
 *
 * A credential that is presented and wrong is AUTH_INVALID under every provider, `none` included:
 * a client that meant to be someone is never silently downgraded or upgraded.
 */
import type { AuthConfig, AuthProvider } from '../config/auth-config.js';
import { canonicalVarName } from '../config/auth-config.js';
import { deepFreeze } from '../config/model.js';
import { ShoalError } from '../errors.js';
import type { IdentityStore } from '../registry/identity-store.js';
import { isWellFormedToken, looksLikeToken, tokenSha256 } from './access-token.js';
import { grantsFromClaims, rolesAndScopes } from './claim-grants.js';
import { createOidcVerifier, type OidcVerifier } from './oidc-verifier.js';
import { DUMMY_HASH, verifyPassword } from './password-hash.js';
import type { Principal } from './principal.js';

export interface Authenticator {
  readonly provider: AuthProvider;
  /** `WWW-Authenticate` values sent with a 401. */
  readonly challenges: readonly string[];
  /** Throws AUTH_REQUIRED / AUTH_INVALID (401) or AUTH_UNAVAILABLE (503). */
  authenticate(authorization: string | undefined): Promise<Principal>;
}

export interface AuthenticatorOptions {
  readonly auth: AuthConfig;
  /** Users and tokens; absent, every token and password is refused. */
  readonly store?: IdentityStore;
  /** What a relative `auth.oidc.jwks_file` is relative to. */
  readonly baseDir?: string;
  /** Epoch ms, for token expiry (default Date.now). */
  readonly clock?: () => number;
}

const MAX_HEADER = 16 * 1024;
const MAX_USERNAME = 128;
const MAX_PASSWORD = 1024;

export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const { auth, store } = options;
  const clock = options.clock ?? Date.now;
  const oidc: OidcVerifier | undefined = auth.provider === 'oidc' && auth.oidc ? createOidcVerifier(auth.oidc, options.baseDir ?? process.cwd()) : undefined;
  const challenges = ['Bearer realm="shoal"', ...(auth.provider === 'basic' ? ['Basic realm="shoal", charset="UTF-8"'] : [])];
  const invalid = (message: string, hint: string) => new ShoalError('AUTH_INVALID', message, { hint });

  const viaToken = async (secret: string): Promise<Principal> => {
    const hint = 'ask an admin for a new token (shoal token create) and send it as Authorization: Bearer <token>';
    if (!isWellFormedToken(secret) || !store) throw invalid('the access token is not valid', hint);
    const t = await store.findToken(tokenSha256(secret));
    if (!t) throw invalid('the access token is not valid', hint);
    if (t.revokedAt !== undefined) throw invalid(`access token ${t.id} has been revoked`, hint);
    if (t.expiresAt !== undefined && Date.parse(t.expiresAt) <= clock()) throw invalid(`access token ${t.id} has expired`, hint);
    return deepFreeze({ id: `token:${t.id}`, kind: 'token', roles: [...t.roles], ...defaultOf(t.defaultRole, t.roles), vars: canonical(t.vars) });
  };

  const viaBasic = async (encoded: string): Promise<Principal> => {
    const hint = 'check the username and password (an admin manages users with shoal user add|list|remove)';
    if (auth.provider !== 'basic') throw invalid('basic authentication is not enabled on this server', 'send Authorization: Bearer <token>');
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    const username = i < 0 ? '' : decoded.slice(0, i);
    const password = i < 0 ? '' : decoded.slice(i + 1);
    if (username === '' || username.length > MAX_USERNAME || password.length > MAX_PASSWORD) throw invalid('wrong username or password', hint);
    const user = store ? await store.getUser(username) : undefined;
    // an unknown user costs the same scrypt as a known one, so timing doesn't tell which exists
    const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
    if (!user || !ok) throw invalid('wrong username or password', hint);
    const extra = auth.default_assignments.filter((a) => !user.roles.includes(a.role_id));
    const { roles, scopes } = rolesAndScopes([...user.roles.map((r) => ({ role_id: r, domain_id: '*' })), ...extra]);
    return deepFreeze({
      id: `user:${user.username}`,
      kind: 'basic',
      roles,
      ...defaultOf(user.defaultRole ?? auth.default_role, roles),
      vars: canonical(user.vars),
      ...(Object.keys(scopes).length > 0 ? { scopes } : {}),
    });
  };

  const viaJwt = async (jwt: string): Promise<Principal> => {
    if (!oidc) throw invalid('this server accepts only access tokens (shoal_pat_…) as bearer credentials', 'ask an admin for a token (shoal token create)');
    const claims = await oidc.verify(jwt);
    const sub = claims[auth.oidc!.subject_claim];
    if (typeof sub !== 'string' || sub === '') throw invalid(`the token has no "${auth.oidc!.subject_claim}" claim naming its subject`, 'configure auth.oidc.subject_claim to a claim the issuer sets');
    const g = grantsFromClaims(claims, auth);
    return deepFreeze({
      id: `oidc:${auth.oidc!.issuer}#${sub}`,
      kind: 'oidc',
      roles: [...g.roles],
      ...defaultOf(g.defaultRole, g.roles),
      vars: g.vars,
      ...(Object.keys(g.scopes).length > 0 ? { scopes: g.scopes } : {}),
    });
  };

  return {
    provider: auth.provider,
    challenges,
    async authenticate(header) {
      if (header === undefined || header.trim() === '') {
        if (auth.provider === 'none') return deepFreeze({ id: 'anonymous', kind: 'anonymous', roles: '*', ...(auth.default_role ? { defaultRole: auth.default_role } : {}), vars: {} });
        throw new ShoalError('AUTH_REQUIRED', 'this request needs credentials', {
          hint: auth.provider === 'basic' ? 'send Authorization: Basic (a registry user) or Authorization: Bearer <token>' : 'send Authorization: Bearer <token> (an OIDC token or a shoal access token)',
        });
      }
      if (header.length > MAX_HEADER) throw invalid('the Authorization header is too long', 'send one credential');
      const m = /^([A-Za-z]+) +(\S+)\s*$/.exec(header);
      if (!m) throw invalid('the Authorization header is malformed', 'send Authorization: Bearer <token> or Basic <base64 user:password>');
      const scheme = m[1]!.toLowerCase();
      const credential = m[2]!;
      if (scheme === 'bearer') return looksLikeToken(credential) ? viaToken(credential) : viaJwt(credential);
      if (scheme === 'basic') return viaBasic(credential);
      throw invalid(`authentication scheme "${m[1]}" is not supported`, 'send Authorization: Bearer <token> or Basic <base64 user:password>');
    },
  };
}

function defaultOf(preferred: string | undefined, roles: readonly string[]): { defaultRole?: string } {
  const d = preferred !== undefined && roles.includes(preferred) ? preferred : roles[0];
  return d === undefined ? {} : { defaultRole: d };
}

function canonical(vars: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(vars).map(([k, v]) => [canonicalVarName(k), v]));
}
