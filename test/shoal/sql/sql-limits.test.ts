import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../../src/shoal/config/limits.js';
import { ShoalError } from '../../../src/shoal/errors.js';
import { parseQuery } from '../../../src/shoal/sql/parse.js';
import { checkSqlLimits, measureSql } from '../../../src/shoal/sql/sql-limits.js';

const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(ShoalError);
    return (e as ShoalError).code;
  }
};

describe('measureSql', () => {
  it('counts string and number literals, not quoted names, parameters or comments', () => {
    const m = measureSql(`SELECT "a""1", 'it''s', 1.5e-3, .5, $1 -- 'not' 42\n/* 'no' /* nested 7 */ 8 */ FROM t WHERE x = $$dollar 'q'$$`);
    expect(m.literals).toBe(4 + 1);
    expect(m.depth).toBe(0);
  });

  it('counts nesting of parentheses and brackets, ignoring those inside strings and comments', () => {
    expect(measureSql("SELECT ((1)), '(((((' /* (((( */ FROM t WHERE a[1] IN (SELECT (2))").depth).toBe(2);
  });

  it('counts tokens linearly: words, literals, operators and punctuation', () => {
    expect(measureSql('SELECT a, b FROM t WHERE a >= 1').tokens).toBe(10);
    expect(measureSql('SELECT a FROM t WHERE a=1 AND b<>2').tokens).toBe(12);
  });

  it('counts UTF-8 bytes', () => {
    expect(measureSql("SELECT 'é'").bytes).toBe(11);
  });
});

describe('checkSqlLimits refuses an oversized text before it is parsed', () => {
  const limits = { ...DEFAULT_LIMITS, max_sql_bytes: 200, max_sql_literals: 5, max_sql_tokens: 40, max_sql_depth: 3 };

  it('accepts a text within every limit', () => {
    expect(checkSqlLimits('SELECT a FROM t WHERE a IN (1, 2, 3)', limits).literals).toBe(3);
  });

  it.each([
    ['SQL_TOO_LARGE', `SELECT '${'x'.repeat(300)}'`],
    ['SQL_TOO_LARGE', `SELECT '${'é'.repeat(150)}'`],
    ['SQL_TOO_MANY_LITERALS', 'SELECT a FROM t WHERE a IN (1, 2, 3, 4, 5, 6)'],
    ['SQL_TOO_MANY_TOKENS', `SELECT a FROM t WHERE ${Array.from({ length: 10 }, () => 'a = b').join(' AND ')}`],
    ['SQL_TOO_DEEP', 'SELECT ((((1))))'],
  ])('%s: %s', (code, sql) => {
    expect(codeOf(() => checkSqlLimits(sql, limits))).toBe(code);
  });

  it('the default limits refuse the shapes whose parsing is superlinear before the parser sees them', () => {
    // 3000 conjuncts: tens of thousands of tokens, seconds of parsing; refused by a linear scan
    const chain = `SELECT a FROM t WHERE ${Array.from({ length: 3000 }, () => 'a = b').join(' AND ')}`;
    expect(codeOf(() => checkSqlLimits(chain, DEFAULT_LIMITS))).toBe('SQL_TOO_MANY_TOKENS');
    const list = `SELECT a FROM t WHERE a IN (${Array.from({ length: 1001 }, (_, i) => i).join(', ')})`;
    expect(codeOf(() => checkSqlLimits(list, DEFAULT_LIMITS))).toBe('SQL_TOO_MANY_LITERALS');
  });

  it('a text at the default limits still parses (the limits do not refuse what the parser handles)', () => {
    const terms = Math.floor((DEFAULT_LIMITS.max_sql_tokens - 10) / 4);
    const sql = `SELECT a FROM t WHERE ${Array.from({ length: terms }, (_, i) => `a = ${i % 900}`).join(' AND ')}`;
    const m = checkSqlLimits(sql, DEFAULT_LIMITS);
    expect(m.tokens).toBeLessThanOrEqual(DEFAULT_LIMITS.max_sql_tokens);
    expect(() => parseQuery(sql)).not.toThrow();
  });
});
