/**
 * Bad input is never a crash: whatever text arrives, planQuery returns a plan or throws a
 * ShoalError with a stable SQL_* code and a hint.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ShoalError } from '../../../src/shoal/errors.js';
import { planQuery } from '../../../src/shoal/sql/index.js';
import { corpus } from './corpus-queries.js';
import { salesCatalog } from './fixtures.js';

const catalogs = [salesCatalog(), salesCatalog({ id: 'm', type: 'mariadb' }), salesCatalog({ id: 'l', type: 'sqlite' })];

function outcome(sql: string, role: string, cat = catalogs[0]!): 'plan' | string {
  try {
    const p = planQuery({ sql, role, vars: { 'provisa.region': 'EU' } }, cat);
    expect(typeof p.sql).toBe('string');
    return 'plan';
  } catch (e) {
    if (!(e instanceof ShoalError)) throw new Error(`not a ShoalError for ${JSON.stringify(sql)}`, { cause: e });
    expect(e.code).toMatch(/^SQL_[A-Z_]+$/);
    expect(e.code, e.message).not.toBe('SQL_INTERNAL');
    expect(e.hint ?? '').not.toBe('');
    return e.code;
  }
}

const tokens = [...new Set(corpus.flatMap(([, sql]) => sql.split(/(\s+|(?=[(),;])|(?<=[(),;]))/)).filter((t) => t && t.trim()))];

describe('robustness', () => {
  it('arbitrary text yields a plan or a ShoalError', () => {
    fc.assert(fc.property(fc.string({ maxLength: 80 }), fc.constantFrom('admin', 'analyst', 'ghost'), (s, role) => {
      outcome(s, role);
    }), { numRuns: 300 });
  }, 300_000);

  it('corpus queries with tokens dropped, duplicated or swapped yield a plan or a ShoalError', () => {
    fc.assert(fc.property(
      fc.constantFrom(...corpus.map(([, sql]) => sql)),
      fc.array(fc.tuple(fc.nat(), fc.constantFrom('drop', 'dup', 'swap', 'insert'), fc.constantFrom(...tokens)), { minLength: 1, maxLength: 3 }),
      fc.constantFrom('admin', 'analyst'),
      fc.nat(2),
      (sql, edits, role, c) => {
        const parts = sql.split(/\s+/);
        for (const [i, op, tok] of edits) {
          const k = i % parts.length;
          if (op === 'drop') parts.splice(k, 1);
          else if (op === 'dup') parts.splice(k, 0, parts[k] ?? tok);
          else if (op === 'swap') [parts[k], parts[(k + 1) % parts.length]] = [parts[(k + 1) % parts.length]!, parts[k]!];
          else parts.splice(k, 0, tok);
        }
        outcome(parts.join(' '), role, catalogs[c]);
      },
    ), { numRuns: 400 });
  }, 300_000);
});
