/** Three-part table names in Trino SQL: found whatever the quoting, never inside a literal or a comment. */
import { describe, expect, it } from 'vitest';
import { renameTables, tableReferences } from '../../../../src/shoal/engine/trino/table-references.js';

const parts = (sql: string) => tableReferences(sql).map((r) => r.parts.join('.'));

describe('table references in Trino SQL', () => {
  it('finds quoted, bare and mixed names, folded to lower case, with spaces around the dots', () => {
    expect(parts('SELECT * FROM "te_shop"."main"."items" JOIN Te_Shop . Main.ITEMS b ON true')).toEqual(['te_shop.main.items', 'te_shop.main.items']);
    expect(parts('SELECT x FROM a."def ""q"""."t"')).toEqual(['a.def "q".t']);
  });

  it('ignores names in string literals, comments and numbers, and shorter names', () => {
    expect(parts("SELECT 'a.b.c', 1.5e3 -- x.y.z\n /* p.q.r */ FROM s.t WHERE u = 'it''s a.b.c'")).toEqual([]);
  });

  it('takes the first three parts of a longer name (a column qualified by its table)', () => {
    expect(parts('SELECT a.b.c.d FROM a.b.c')).toEqual(['a.b.c', 'a.b.c']);
  });

  it('renames only what the callback names, keeping the rest as written', () => {
    const sql = `SELECT a.b.c.d, 'a.b.c' FROM a.b.c JOIN "x"."y"."z" ON true`;
    expect(renameTables(sql, (r) => (r.parts.join('.') === 'a.b.c' ? '"l"."i"."q1"' : undefined))).toBe(`SELECT "l"."i"."q1".d, 'a.b.c' FROM "l"."i"."q1" JOIN "x"."y"."z" ON true`);
  });
});
