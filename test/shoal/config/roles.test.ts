import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CAPABILITIES, makeRole, type RoleConfig } from '../../../src/shoal/config/model.js';
import { canAccessDomain, resolveRole, resolveRoles } from '../../../src/shoal/config/roles.js';

describe('role inheritance', () => {
  const roles = [
    makeRole({ id: 'base', capabilities: ['query_development'], domain_access: ['sales'], max_rows: 100 }),
    makeRole({ id: 'analyst', capabilities: ['full_results'], domain_access: ['hr'], parent_role_id: 'base', max_rows: 500 }),
    makeRole({ id: 'lead', capabilities: [], domain_access: [], parent_role_id: 'analyst' }),
    makeRole({ id: 'admin', capabilities: ['admin'], domain_access: ['*'], parent_role_id: 'base' }),
  ];

  it('unions capabilities and domains along the chain; the stricter max_rows wins', () => {
    expect(resolveRole(roles, 'lead')).toEqual({
      id: 'lead',
      lineage: ['lead', 'analyst', 'base'],
      capabilities: ['full_results', 'query_development'],
      domain_access: ['hr', 'sales'],
      max_rows: 100,
    });
    const admin = resolveRole(roles, 'admin');
    expect(admin.domain_access).toEqual(['*']);
    expect(canAccessDomain(admin, 'anything')).toBe(true);
    expect(canAccessDomain(resolveRole(roles, 'base'), 'hr')).toBe(false);
    expect(resolveRoles(roles).size).toBe(4);
  });

  it('an unknown role or parent, and a cycle, are coded errors', () => {
    expect(() => resolveRole(roles, 'ghost')).toThrow(expect.objectContaining({ code: 'ROLE_UNKNOWN' }));
    expect(() => resolveRole([makeRole({ id: 'a', parent_role_id: 'b' })], 'a')).toThrow(expect.objectContaining({ code: 'ROLE_UNKNOWN' }));
    const cyc = [makeRole({ id: 'a', parent_role_id: 'b' }), makeRole({ id: 'b', parent_role_id: 'a' })];
    expect(() => resolveRole(cyc, 'a')).toThrow(expect.objectContaining({ code: 'ROLE_CYCLE', message: expect.stringContaining('a -> b -> a') }));
  });

  it('law: a role holds at least what it and every ancestor declare, and inherits the minimum max_rows', () => {
    const chain = fc.array(
      fc.record({
        caps: fc.subarray([...CAPABILITIES]),
        domains: fc.subarray(['a', 'b', 'c', 'd']),
        max: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }),
      }),
      { minLength: 1, maxLength: 6 },
    );
    fc.assert(
      fc.property(chain, (specs) => {
        const rs: RoleConfig[] = specs.map((s, i) =>
          makeRole({ id: `r${i}`, capabilities: s.caps, domain_access: s.domains, max_rows: s.max, parent_role_id: i > 0 ? `r${i - 1}` : undefined }),
        );
        const leaf = resolveRole(rs, `r${specs.length - 1}`);
        for (const s of specs) {
          for (const c of s.caps) expect(leaf.capabilities).toContain(c);
          for (const d of s.domains) expect(leaf.domain_access).toContain(d);
        }
        const maxes = specs.map((s) => s.max).filter((m): m is number => m !== undefined);
        expect(leaf.max_rows).toBe(maxes.length ? Math.min(...maxes) : undefined);
        expect(leaf.lineage).toHaveLength(specs.length);
      }),
    );
  });
});
