import { describe, expect, it } from 'vitest';
import { isBlank, parameterCount, splitStatements, substituteParameters } from '../../../src/shoal/pgwire/sql-text.js';

describe('SQL text for the wire protocol', () => {
  it('splits a Query message at top-level semicolons only, with each statement offset in characters', () => {
    const sql = `SELECT 'a;b' AS "x;y"; -- c;d\nSELECT $q$;$q$ /* ; /* ; */ */; SELECT E'\\';' ;  `;
    expect(splitStatements(sql).map((s) => s.sql)).toEqual([`SELECT 'a;b' AS "x;y"`, `-- c;d\nSELECT $q$;$q$ /* ; /* ; */ */`, `SELECT E'\\';'`]);
    const [, second] = splitStatements('SELECT 1; SELECT ü; SELECT 2');
    expect(splitStatements('SELECT ü; SELECT 2')[1]!.offset).toBe(10);
    expect(second!.sql).toBe('SELECT ü');
  });

  it('drops blank statements and recognises a blank text', () => {
    expect(splitStatements(' ; -- nothing\n ;')).toEqual([]);
    expect(isBlank('/* x */ -- y\n')).toBe(true);
    expect(isBlank("'--'")).toBe(false);
  });

  it('finds $n placeholders outside quotes, comments and dollar quotes', () => {
    const sql = `SELECT $1, '$2', "$3", $$ $4 $$, $tag$ $5 $tag$ -- $6\n, a$7, $2 /* $9 */`;
    expect(parameterCount(sql)).toBe(2);
    expect(substituteParameters('SELECT $1::int, $2 FROM t WHERE x = $1', ['5', "'a'"])).toBe("SELECT  5 ::int,  'a'  FROM t WHERE x =  5 ");
  });
});
