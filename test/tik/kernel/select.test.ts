import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCodedError } from '../../../src/core/errors.js';
import { Keyword, type EdnValue } from '../../../src/tik/edn/value.js';
import { compileSelector, type SelectRow } from '../../../src/tik/kernel/select.js';

// upstream's select_test row
const row: SelectRow = {
  current: new Set([':triaged', ':blocked']),
  facts: new Map<string, EdnValue>([
    ['severity', Keyword.of('high')],
    ['customer.ack', 'yes'],
    ['count', 3n],
  ]),
  actors: new Set(['seb', 'alice']),
  derivedFrom: new Set(['sha256-abc']),
  haystack: 'login fails on firefox',
  disputed: true,
  conflicted: false,
  unsigned: false,
};
const match = (expr: string, r: SelectRow = row): boolean => compileSelector(expr).test(r);

describe('selector atoms (upstream tik.select)', () => {
  it('match their dimension', () => {
    expect(match('stage=:blocked')).toBe(true);
    expect(match('stage=blocked')).toBe(true);
    expect(match('stage=:closed')).toBe(false);
    expect(match('fact:severity')).toBe(true);
    expect(match('fact:severity=:high')).toBe(true);
    expect(match('fact:severity=high')).toBe(true);
    expect(match('fact:severity=:low')).toBe(false);
    expect(match('fact:missing')).toBe(false);
    expect(match('fact:customer.ack=yes')).toBe(true);
    expect(match('fact:customer.ack=:yes')).toBe(true);
    expect(match('fact:count=3')).toBe(true);
    expect(match('actor=seb')).toBe(true);
    expect(match('actor=carol')).toBe(false);
    expect(match('derived-from=sha256-abc')).toBe(true);
    expect(match('disputed')).toBe(true);
    expect(match('conflicted')).toBe(false);
    expect(match('~firefox')).toBe(true);
    expect(match('~FireFox')).toBe(true);
    expect(match('firefox')).toBe(true);
    expect(match('~safari')).toBe(false);
    expect(match('~')).toBe(true);
  });

  it('compose with not and conjunction', () => {
    expect(match('not conflicted')).toBe(true);
    expect(match('not disputed')).toBe(false);
    expect(match('stage=:blocked and fact:severity=:high')).toBe(true);
    expect(match('stage=:blocked fact:severity=:high not conflicted')).toBe(true);
    expect(match('stage=:blocked and conflicted')).toBe(false);
    expect(match('')).toBe(true);
    expect(match('  \t ')).toBe(true);
  });

  it('reads signatures only when a term asks', () => {
    expect(compileSelector('stage=:x disputed').readsSignatures).toBe(false);
    expect(compileSelector('not unsigned').readsSignatures).toBe(true);
    expect(match('unsigned', { ...row, unsigned: true })).toBe(true);
    expect(match('not unsigned', { ...row, unsigned: true })).toBe(false);
  });

  it('says when it reads stages (and signatures) alone: then the other fields cannot change its answer', () => {
    expect(compileSelector('stage=:x not stage=y unsigned').readsOnlyStages).toBe(true);
    expect(compileSelector('').readsOnlyStages).toBe(true);
    for (const e of ['stage=:x disputed', 'fact:a', 'actor=x', '~z', 'conflicted', 'derived-from=h', 'word']) expect(compileSelector(e).readsOnlyStages, e).toBe(false);
    const blank: SelectRow = { ...row, facts: new Map(), actors: new Set(), derivedFrom: new Set(), haystack: '', disputed: false, conflicted: false };
    const pieces = ['stage=:triaged', 'stage=x', 'not', 'unsigned', 'disputed', 'fact:severity', 'actor=seb', '~login'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 5 }), fc.boolean(), (words, unsigned) => {
        if (words[words.length - 1] === 'not') words.push('unsigned');
        const sel = compileSelector(words.join(' '));
        if (!sel.readsOnlyStages) return true;
        return sel.test({ ...row, unsigned }) === sel.test({ ...blank, unsigned });
      }),
      { numRuns: 300 },
    );
  });

  it('refuses bad terms with select/bad-term', () => {
    for (const bad of ['bogus=nope', 'stage=:blocked and not', 'not', 'stage=', '=x', 'a:b', 'fact:', 'fact:a..b', 'x'.repeat(9000)]) {
      let code: string | undefined;
      try {
        compileSelector(bad);
      } catch (e) {
        code = isCodedError(e) ? e.code : 'crash';
      }
      expect(code, bad).toBe('select/bad-term');
    }
  });

  it('refuses more than 64 terms (each may scan every ticket), counting `not x` as one and `and` as none', () => {
    const terms = (n: number): string => Array.from({ length: n }, (_, i) => `not ~q${i}`).join(' and ');
    expect(compileSelector(terms(64)).test(row)).toBe(true);
    let err: unknown;
    try {
      compileSelector(terms(65));
    } catch (e) {
      err = e;
    }
    expect(isCodedError(err) ? [err.code, err.message] : err).toEqual(['select/bad-term', 'a selector has at most 64 terms (got 65)']);
  });

  it('is total over hostile expressions: a predicate or select/bad-term, never another throw', () => {
    const pieces = ['stage=:x', 'fact:a', 'fact:a=b', 'actor=x', 'disputed', 'not', 'and', '~z', 'bogus=1', '=', ':', '~', 'fact:', 'stage=', 'unsigned'];
    const expr = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.array(fc.constantFrom(...pieces), { maxLength: 6 }).map((a) => a.join(' ')));
    fc.assert(
      fc.property(expr, (e) => {
        let pred;
        try {
          pred = compileSelector(e);
        } catch (err) {
          return isCodedError(err) && err.code === 'select/bad-term';
        }
        return typeof pred.test(row) === 'boolean';
      }),
      { numRuns: 500 },
    );
  });
});
