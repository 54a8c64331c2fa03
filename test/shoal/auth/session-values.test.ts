import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../src/shoal/auth/principal.js';
import { sessionValues } from '../../../src/shoal/auth/session-values.js';
import { checkConfigText } from '../../../src/shoal/check/load-config.js';
import { canonicalVarName } from '../../../src/shoal/config/auth-config.js';
import type { ShoalError } from '../../../src/shoal/errors.js';

const auth = checkConfigText(`auth:
  session_vars:
    - {name: provisa.day, client_settable: true}
    - {name: provisa.tier, role_values: {partner: external}}
    - {name: provisa.note, client_settable: true, role_values: {partner: p}}
`, {}).config!.auth!;
const user = (vars: Record<string, string>): Principal => ({ id: 'user:u', kind: 'basic', roles: ['partner'], vars });

/** Spellings `current_setting` treats as the same variable. */
const spelling = fc.tuple(fc.constantFrom('user_region', 'day', 'tier', 'note', 'tenant'), fc.boolean(), fc.boolean()).map(([n, prefix, upper]) => {
  const s = prefix ? `provisa.${n}` : n;
  return upper ? s.toUpperCase() : s;
});

describe('session values', () => {
  it('law: an identity value is never changed by the client, whatever the spelling; the request is refused instead', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 8 }), spelling, fc.string({ maxLength: 8 }), (region, key, value) => {
        const p = user({ 'provisa.user_region': region });
        let out: Readonly<Record<string, string>> | undefined;
        try {
          out = sessionValues(p, 'partner', { [key]: value }, auth);
        } catch (e) {
          expect((e as ShoalError).code).toBe('VAR_NOT_SETTABLE');
          return;
        }
        // accepted only for a declared client-settable variable, and identity values are intact
        expect(['provisa.day', 'provisa.note']).toContain(canonicalVarName(key));
        expect(out['provisa.user_region']).toBe(region);
        expect(out[canonicalVarName(key)]).toBe(value);
      }),
    );
  });

  it('role values fill in what the identity lacks; a settable one may be overridden, a non-settable one not', () => {
    expect(sessionValues(user({}), 'partner', {}, auth)).toEqual({ 'provisa.tier': 'external', 'provisa.note': 'p' });
    expect(sessionValues(user({}), 'partner', { note: 'mine' }, auth)['provisa.note']).toBe('mine');
    expect(() => sessionValues(user({}), 'partner', { tier: 'internal' }, auth)).toThrow(expect.objectContaining({ code: 'VAR_NOT_SETTABLE' }));
    expect(sessionValues(user({ 'provisa.tier': 'gold' }), 'partner', {}, auth)['provisa.tier']).toBe('gold');
  });

  it('the same variable twice, or a malformed name, is refused', () => {
    expect(() => sessionValues(user({}), 'partner', { day: 'a', 'provisa.DAY': 'b' }, auth)).toThrow(expect.objectContaining({ code: 'VAR_INVALID' }));
    expect(() => sessionValues(user({}), 'partner', { "x'; drop": 'a' }, auth)).toThrow(expect.objectContaining({ code: 'VAR_INVALID' }));
  });

  it('the operator and provider none may set any variable', () => {
    for (const kind of ['operator', 'anonymous'] as const) {
      expect(sessionValues({ id: kind, kind, roles: '*', vars: {} }, 'partner', { user_region: 'eu' }, auth)['provisa.user_region']).toBe('eu');
    }
  });
});
