import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { interpolate } from '../../../src/shoal/config/env-interpolation.js';
import { isSecretReference, resolveSecret, secretVariable } from '../../../src/shoal/config/secret.js';
import { ShoalError } from '../../../src/shoal/errors.js';

const varName = fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,8}$/);
const plain = fc.string({ maxLength: 12 }).filter((s) => !s.includes('$'));
const value = fc.string({ maxLength: 12 });

describe('env interpolation', () => {
  it('replaces set variables, falls back to defaults, keeps other text', () => {
    expect(interpolate('postgresql://${env:U}@${env:H:-localhost}:5432/db', { U: 'me' })).toEqual({
      ok: true,
      value: 'postgresql://me@localhost:5432/db',
      interpolated: true,
    });
    expect(interpolate('${env:EMPTY:-x}', { EMPTY: '' })).toMatchObject({ value: '' });
    expect(interpolate('${env:NONE:-}', {})).toMatchObject({ value: '' });
    expect(interpolate('no refs here', {})).toEqual({ ok: true, value: 'no refs here', interpolated: false });
  });

  it('reports a missing variable by name and malformed references', () => {
    expect(interpolate('a ${env:MISSING} b', {})).toMatchObject({ ok: false, problem: 'missing', variable: 'MISSING' });
    for (const bad of ['${env:}', '${env:1X}', '${ENV:X}', '${env:X', '${ env:X}']) {
      expect(interpolate(bad, { X: 'x' }), bad).toMatchObject({ ok: false, problem: 'malformed' });
    }
  });

  it('law: text without references is returned unchanged', () => {
    fc.assert(
      fc.property(plain, (s) => {
        expect(interpolate(s, {})).toEqual({ ok: true, value: s, interpolated: false });
      }),
    );
  });

  it('law: a set variable substitutes its value exactly, wherever it is embedded', () => {
    fc.assert(
      fc.property(plain, varName, value, plain, (before, name, v, after) => {
        const r = interpolate(`${before}\${env:${name}}${after}`, { [name]: v });
        expect(r).toEqual({ ok: true, value: `${before}${v}${after}`, interpolated: true });
      }),
    );
  });

  it('law: the default is used exactly when the variable is unset', () => {
    fc.assert(
      fc.property(varName, value.filter((d) => !d.includes('}')), fc.option(value, { nil: undefined }), (name, d, set) => {
        const r = interpolate(`\${env:${name}:-${d}}`, set === undefined ? {} : { [name]: set });
        expect(r).toMatchObject({ ok: true, value: set ?? d });
      }),
    );
  });
});

describe('secret references', () => {
  it('recognises only a whole ${env:VAR} with no default', () => {
    expect(isSecretReference('${env:PW}')).toBe(true);
    expect(secretVariable('${env:PW}')).toBe('PW');
    for (const s of ['hunter2', '${env:PW:-x}', 'x${env:PW}', '${env:PW}x', '']) expect(isSecretReference(s), s).toBe(false);
  });

  it('resolves at connect time, with coded errors for unset and literal secrets', () => {
    expect(resolveSecret('${env:PW}', { PW: 's3cret' })).toBe('s3cret');
    expect(() => resolveSecret('${env:PW}', {})).toThrow(expect.objectContaining({ code: 'SECRET_UNRESOLVED' }));
    try {
      resolveSecret('hunter2', {}, 'source pg');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ShoalError);
      expect((e as ShoalError).code).toBe('SECRET_PLAINTEXT');
      expect((e as ShoalError).message).not.toContain('hunter2');
      expect((e as ShoalError).where).toBe('source pg');
    }
  });
});
