/**
 * The literal lifter's small lexer: which literals become parameters, and which texts lift
 * nothing. It runs on every request (the plan cache's key), so it scans by character code; these
 * cases pin what it reads as the regex-based scanner did.
 */
import { describe, expect, it } from 'vitest';
import { liftLiterals, withLiterals } from '../../../src/shoal/instance/literal-lift.js';

const values = (sql: string) => liftLiterals(sql)?.literals.map((l) => [l.cls, l.value]);

describe('liftLiterals', () => {
  it('lifts comparison operands and IN-list items, by class', () => {
    expect(values("SELECT * FROM t WHERE id = 5 AND big >= 5000000000 AND name <> 'a b@c.d'")).toEqual([
      ['int4', '5'],
      ['int8', '5000000000'],
      ['string', 'a b@c.d'],
    ]);
    expect(values("SELECT * FROM t WHERE id IN (1, 2) AND r in ('eu','us')")).toEqual([
      ['int4', '1'],
      ['int4', '2'],
      ['string', 'eu'],
      ['string', 'us'],
    ]);
  });

  it('keeps literals whose value shapes the plan or whose form is not plain', () => {
    expect(liftLiterals('SELECT * FROM t LIMIT 5')).toBeUndefined();
    expect(liftLiterals('SELECT * FROM t ORDER BY 1')).toBeUndefined();
    expect(liftLiterals("SELECT date_trunc('month', d) FROM t")).toBeUndefined();
    expect(liftLiterals('SELECT * FROM t WHERE x = 1.5 OR y = 07 OR z = 1e5 OR w = 99999999999999999999')).toBeUndefined();
    expect(liftLiterals("SELECT * FROM t WHERE x = 'it''s'")).toBeUndefined();
    expect(liftLiterals("SELECT * FROM t WHERE x = 'a$b'")).toBeUndefined();
    expect(liftLiterals("SELECT * FROM t WHERE x = 5 .y OR z = 'a'(")).toBeUndefined();
  });

  it('lifts nothing from a text with a comment, a dollar, a backquote or an unterminated token', () => {
    for (const sql of ['SELECT 1 FROM t WHERE id = 5 -- c', 'SELECT 1 FROM t /* c */ WHERE id = 5', 'SELECT $1 FROM t WHERE id = 5',
      'SELECT `a` FROM t WHERE id = 5', "SELECT 1 FROM t WHERE id = 5 AND x = 'open", 'SELECT "open FROM t WHERE id = 5']) {
      expect(liftLiterals(sql), sql).toBeUndefined();
    }
  });

  it('reads any whitespace the SQL regex \\s reads, and quoted names as names', () => {
    expect(values('SELECT\u00a0*\u2028FROM\tt WHERE\nid\u3000=\u00a05')).toEqual([['int4', '5']]);
    expect(values('SELECT "id = 5" FROM t WHERE "x"=7')).toEqual([['int4', '7']]);
    expect(values('SELECT * FROM t WHERE a::int = 3 OR b||c = 4')).toEqual([['int4', '3'], ['int4', '4']]);
  });

  it('gives a shape per class, and the text back from its literals', () => {
    const sql = "SELECT * FROM t WHERE id = 5 AND r = 'eu'";
    const lifted = liftLiterals(sql)!;
    expect(lifted.shape).toBe("SELECT * FROM t WHERE id = \u0000int4\u0000 AND r = \u0000string\u0000");
    expect(liftLiterals("SELECT * FROM t WHERE id = 6 AND r = 'us'")!.shape).toBe(lifted.shape);
    expect(withLiterals(sql, lifted, ['6', 'us'])).toBe("SELECT * FROM t WHERE id = 6 AND r = 'us'");
  });
});
