import { describe, expect, it } from 'vitest';
import { ednMap, readEdn } from '../../../src/tik/edn/index.js';
import { Instant, kw, Uuid } from '../../../src/tik/edn/value.js';
import { reduce } from '../../../src/tik/kernel/index.js';
import { factEnv, factEnvName, factEnvValue } from '../../../src/tik/app/probe-env.js';
import { Ticket } from '../kernel/builders.js';

/** The facts a probe sees as TIK_FACT_<PATH> (upstream's fact-env). */
describe('probe environment', () => {
  it('names a path by its segments joined with __, upper-cased, anything outside [A-Z0-9_] as _', () => {
    expect(factEnvName([kw('workload')])).toBe('TIK_FACT_WORKLOAD');
    expect(factEnvName([kw('candidate'), kw('repo')])).toBe('TIK_FACT_CANDIDATE__REPO');
    expect(factEnvName([kw('a-b'), kw('ns/x?')])).toBe('TIK_FACT_A_B__NS_X_');
    // a hostile log may carry non-keyword segments: named, never a crash
    expect(factEnvName(['s p', 7n])).toBe('TIK_FACT_S_P__7');
  });

  it('gives values as a shell wants them: a keyword without its colon, text as is, anything else as EDN', () => {
    expect(factEnvValue(kw('carry'))).toBe('carry');
    expect(factEnvValue(kw('ns/carry'))).toBe('ns/carry');
    expect(factEnvValue('https://example.test/o/g')).toBe('https://example.test/o/g');
    expect(factEnvValue(42n)).toBe('42');
    expect(factEnvValue(true)).toBe('true');
    expect(factEnvValue(new Uuid('018f2f6e-7c1a-7000-8000-000000000001'))).toBe('018f2f6e-7c1a-7000-8000-000000000001');
    expect(factEnvValue(new Instant(Date.parse('2026-07-08T10:00:00.013Z')))).toBe('2026-07-08T10:00:00.013Z');
    expect(factEnvValue(readEdn('[:a "b"]', 't'))).toBe('[:a "b"]');
    expect(factEnvValue(ednMap([[kw('a'), 1n], [kw('b'), 2n]]))).toBe('{:a 1, :b 2}');
  });

  it('exports only present facts, and drops a name two paths share, naming both', () => {
    const t = new Ticket('track');
    t.create('seb');
    t.assert('seb', 'workload', kw('opengist'));
    t.assert('seb', 'gone', 'x');
    t.retract('seb', 'gone');
    t.assert('seb', 'doubted', 'y');
    t.dispute('rando', 'doubted', 'no');
    t.assert('seb', 'a-b', 1n);
    t.assert('seb', 'a_b', 2n);
    const { env, collisions } = factEnv(reduce(t.events));
    expect(env).toEqual({ TIK_FACT_WORKLOAD: 'opengist' });
    expect(collisions).toEqual([{ name: 'TIK_FACT_A_B', paths: ['[:a-b]', '[:a_b]'] }]);
  });
  it('leaves out a value holding a NUL character (no environment variable can carry one; spawn would throw), naming its path', () => {
    const t = new Ticket('track');
    t.create('seb');
    t.assert('seb', 'workload', kw('opengist'));
    t.assert('seb', 'note', 'a\u0000b');
    const { env, unexportable } = factEnv(reduce(t.events));
    expect(env).toEqual({ TIK_FACT_WORKLOAD: 'opengist' });
    expect(unexportable).toEqual(['[:note]']);
  });
});
