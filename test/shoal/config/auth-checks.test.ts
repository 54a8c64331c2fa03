import { describe, expect, it } from 'vitest';
import { checkConfigText } from '../../../src/shoal/check/load-config.js';

const ROLES = `roles:
  - {id: admin, capabilities: [admin], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development], domain_access: ["*"]}
`;

const oidc = (extra: string) => `auth:
  provider: oidc
  oidc:
    issuer: https://issuer.test
    audience: api
    jwks_url: https://issuer.test/jwks
${extra}${ROLES}`;

const codes = (text: string) => {
  const r = checkConfigText(text, {});
  return { ok: r.ok, errors: r.errors.map((e) => `${e.code} ${e.path}`), warnings: r.warnings.map((w) => `${w.code} ${w.path}`), config: r.config };
};

describe('the auth: config key', () => {
  it('absent means authentication required (basic users and tokens), not none', () => {
    const r = codes(ROLES);
    expect(r.ok).toBe(true);
    expect(r.config?.auth).toMatchObject({ provider: 'basic', declared: false });
  });

  it('provider none is accepted only as written, with a warning', () => {
    const r = codes(`auth: {provider: none}\n${ROLES}`);
    expect(r.config?.auth?.provider).toBe('none');
    expect(r.warnings).toContain('CONFIG_AUTH_NONE auth.provider');
  });

  it("reads upstream's oauth as oidc and applies the oidc defaults", () => {
    const r = codes(oidc('').replace('provider: oidc', 'provider: oauth'));
    expect(r.ok).toBe(true);
    expect(r.config?.auth?.oidc).toMatchObject({ algorithms: ['RS256', 'ES256'], audience: ['api'], role_claim: 'roles', clock_skew_seconds: 60 });
  });

  it('refuses none and HMAC algorithms, naming the key path', () => {
    const r = codes(oidc('').replace('    jwks_url', '    algorithms: [RS256, none, HS256]\n    jwks_url'));
    expect(r.ok).toBe(false);
    expect(r.errors).toEqual(expect.arrayContaining(['CONFIG_AUTH_ALGORITHM auth.oidc.algorithms[1]', 'CONFIG_AUTH_ALGORITHM auth.oidc.algorithms[2]']));
  });

  it('needs exactly one key source, and https for a remote one', () => {
    expect(codes(oidc('').replace('    jwks_url: https://issuer.test/jwks\n', '')).errors).toContain('CONFIG_AUTH_OIDC auth.oidc');
    expect(codes(oidc('').replace('https://issuer.test/jwks', 'http://issuer.test/jwks')).errors).toContain('CONFIG_AUTH_OIDC auth.oidc.jwks_url');
    expect(codes(oidc('').replace('https://issuer.test/jwks', 'http://127.0.0.1:9/jwks')).ok).toBe(true);
    expect(codes(`auth: {provider: oidc}\n${ROLES}`).errors).toContain('CONFIG_AUTH_OIDC auth.oidc');
  });

  it('checks role mapping rules, session variables and unknown keys', () => {
    const r = codes(`auth:
  role_mapping:
    - {claim: groups, provisa_role: admin}
    - {claim: groups, contains: x, provisa_role: ghost}
  session_vars:
    - {name: "bad name", client_settable: true}
    - {name: USER_REGION}
    - {name: provisa.user_region}
  superuser: {username: admin}
  providr: oidc
${ROLES}`);
    expect(r.errors).toEqual(expect.arrayContaining([
      'CONFIG_AUTH_RULE auth.role_mapping[0]',
      'CONFIG_AUTH_VAR auth.session_vars[0].name',
      'CONFIG_AUTH_VAR auth.session_vars[2].name',
      'CONFIG_UNKNOWN_KEY auth.providr',
    ]));
    expect(r.warnings).toEqual(expect.arrayContaining(['CONFIG_AUTH_UNKNOWN_ROLE auth.role_mapping[1].provisa_role', 'CONFIG_UNSUPPORTED_KEY auth.superuser']));
  });

  it('canonicalises session variable names and defaults client_settable to false', () => {
    const r = codes(`auth:\n  session_vars: [{name: User_Region, claim: region}, {name: provisa.day, client_settable: true}]\n${ROLES}`);
    expect(r.config?.auth?.session_vars).toEqual([
      { name: 'provisa.user_region', claim: 'region', role_values: {}, client_settable: false },
      { name: 'provisa.day', role_values: {}, client_settable: true },
    ]);
  });
});
