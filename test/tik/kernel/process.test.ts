import { describe, expect, it } from 'vitest';
import { readEdn } from '../../../src/tik/edn/index.js';
import type { EdnMap } from '../../../src/tik/edn/value.js';
import type { TikError } from '../../../src/tik/errors.js';
import { resolveRoles } from '../../../src/tik/kernel/index.js';
import { defFromText, loadDef, registerRoles } from './builders.js';

describe('roles (§4.3)', () => {
  it('the register replaces whole roles and keeps roles it does not name', () => {
    const def = defFromText(`{:process/id :r :process/version 1
      :process/roles {:a {:members ["x" "y"]} :b {:members ["z"]}} :process/stages [{:stage/id :s}]}`);
    const roles = resolveRoles(def, readEdn('{:a {:members ["q"]} :c {:members []}}') as EdnMap);
    expect(Object.fromEntries(roles)).toEqual({ ':a': ['q'], ':b': ['z'], ':c': [] });
  });

  it('without a register the definition roles stand (the corpus rule)', () => {
    const def = loadDef('corpus/support-closed-sticky/processes/support-request.edn');
    expect(Object.fromEntries(resolveRoles(def))).toEqual({ ':triager': ['seb'], ':billing': ['billing'] });
  });

  it('shipped definitions have empty members; the repo register fills them', () => {
    const def = loadDef('processes/support-request.edn');
    expect(Object.fromEntries(def.roles)).toEqual({ ':triager': [], ':billing': [] });
    expect(Object.fromEntries(registerRoles(def))).toEqual({ ':triager': ['seb'], ':billing': ['billing'], ':maintainer': ['seb'] });
  });

  it('a malformed register is a process/invalid error naming roles.edn', () => {
    const def = loadDef('processes/track.edn');
    try {
      resolveRoles(def, readEdn('{:a {:members "seb"}}') as EdnMap);
      expect.unreachable();
    } catch (e) {
      expect((e as TikError).code).toBe('process/invalid');
      expect((e as TikError).where).toContain('roles.edn');
    }
  });
});

describe('definitions (§4.1)', () => {
  it('exposes stages with their :after, sticky flag and hint, in definition order', () => {
    const def = loadDef('processes/support-request.edn');
    expect(def.stages.map((s) => [s.key, s.afterKeys, s.sticky])).toEqual([
      [':received', [], false],
      [':triaged', [':received'], false],
      [':escalated', [':received'], false],
      [':reproducible', [':triaged'], false],
      [':resolved', [':triaged'], false],
      [':closed', [':resolved'], true],
    ]);
    expect(def.id.toString()).toBe(':support-request');
    expect(def.version).toBe(1n);
    expect(def.facts.get('[:resolution :ref]')?.schema).toEqual(readEdn('[:string {:min 8}]'));
  });
});
