import { describe, expect, it } from 'vitest';
import { claimAt, grantsFromClaims, parseAssignment } from '../../../src/shoal/auth/claim-grants.js';
import { checkConfigText } from '../../../src/shoal/check/load-config.js';

const auth = checkConfigText(`auth:
  role_mapping:
    - {claim: groups, contains: data-admins, provisa_role: admin}
    - {claim: custom.dept, value: finance, provisa_role: analyst}
  default_role: guest
  default_assignments: [{role_id: viewer, domain_id: public}]
  session_vars: [{name: provisa.user_region, claim: region}]
`, {}).config!.auth!;

describe('grants from verified claims', () => {
  it("parses upstream's role_id:domain_id on the first colon; a bare role is every domain", () => {
    expect(parseAssignment('analyst:trading_ops')).toEqual({ role_id: 'analyst', domain_id: 'trading_ops' });
    expect(parseAssignment('analyst')).toEqual({ role_id: 'analyst', domain_id: '*' });
    expect(parseAssignment('a:b:c')).toEqual({ role_id: 'a', domain_id: 'b:c' });
    expect(parseAssignment(' ')).toBeUndefined();
    expect(parseAssignment(':x')).toBeUndefined();
  });

  it('reads claims by name or dotted path', () => {
    expect(claimAt({ 'https://x/roles': ['a'] }, 'https://x/roles')).toEqual(['a']);
    expect(claimAt({ custom: { dept: 'finance' } }, 'custom.dept')).toBe('finance');
    expect(claimAt({ custom: 'x' }, 'custom.dept')).toBeUndefined();
  });

  it('unions rules, role claims and default assignments; the first rule is the default role', () => {
    const g = grantsFromClaims({ groups: ['data-admins'], custom: { dept: 'finance' }, roles: ['analyst:sales', 'auditor'], region: 'eu' }, auth);
    expect([...g.roles].sort()).toEqual(['admin', 'analyst', 'auditor', 'viewer']);
    expect(g.defaultRole).toBe('admin');
    // analyst is granted on every domain by the rule, so the claim's domain does not narrow it
    expect(g.scopes).toEqual({ viewer: ['public'] });
    expect(g.vars).toEqual({ 'provisa.user_region': 'eu' });
  });

  it('a domain-scoped role claim limits that role; default_role applies only when nothing else granted one', () => {
    const scoped = grantsFromClaims({ roles: 'analyst:sales' }, auth);
    expect(scoped.scopes).toMatchObject({ analyst: ['sales'] });
    expect(scoped.roles).not.toContain('guest');
    const bare = grantsFromClaims({ groups: 'data-admins' }, auth); // contains needs a list
    expect(bare.roles).toEqual(['guest', 'viewer']);
    expect(bare.defaultRole).toBe('guest');
  });

  it('a non-scalar claim sets no session value (the RLS filter then fails closed)', () => {
    expect(grantsFromClaims({ region: ['eu', 'us'] }, auth).vars).toEqual({});
  });
});
