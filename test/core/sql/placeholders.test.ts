import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toPostgresPlaceholders } from '../../../src/core/sql/placeholders.js';

describe('? → $n placeholders', () => {
  it('numbers placeholders in order and leaves quoted text, comments and dollar quotes alone', () => {
    expect(toPostgresPlaceholders('SELECT * FROM t WHERE a = ? AND b = ?')).toBe('SELECT * FROM t WHERE a = $1 AND b = $2');
    expect(toPostgresPlaceholders(`SELECT '?', "x?" , 'it''s ?' FROM t WHERE c = ?`)).toBe(`SELECT '?', "x?" , 'it''s ?' FROM t WHERE c = $1`);
    expect(toPostgresPlaceholders('SELECT ? -- why?\n, ? /* what? */')).toBe('SELECT $1 -- why?\n, $2 /* what? */');
    expect(toPostgresPlaceholders('SELECT $$a?b$$, $tag$?$tag$, ?')).toBe('SELECT $$a?b$$, $tag$?$tag$, $1');
    expect(toPostgresPlaceholders('SELECT pg_notify(?, ?)')).toBe('SELECT pg_notify($1, $2)');
  });

  it('law: a ? outside quotes becomes the next $n and everything else is unchanged', () => {
    const piece = fc.oneof(
      fc.constant({ sql: '?', params: 1 }),
      fc.stringMatching(/^[a-z0-9 =,()*]{0,6}$/).map((s) => ({ sql: s, params: 0 })),
      fc.stringMatching(/^[a-z?]{0,5}$/).map((s) => ({ sql: `'${s}'`, params: 0 })),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        let n = 0;
        const expected = pieces.map((p) => (p.params ? `$${++n}` : p.sql)).join('');
        expect(toPostgresPlaceholders(pieces.map((p) => p.sql).join(''))).toBe(expected);
      }),
    );
  });
});
