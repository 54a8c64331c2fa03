import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import Database from 'better-sqlite3';
import { quoteIdent, sourceSelectSql } from '../../../../src/shoal/sources/pushdown-sql.js';
import type { SimplePredicate } from '../../../../src/shoal/sources/simple-predicate.js';

describe('the statement sent to a source', () => {
  it('projects and filters with bound parameters, per dialect', () => {
    const select = {
      schema: 'public',
      table: 'orders',
      columns: ['id', 'region'],
      predicates: [
        { column: 'region', op: '=', value: 'eu' },
        { column: 'amount', op: '>=', value: 10n },
        { column: 'status', op: 'IN', values: ['new', 'paid'] },
        { column: 'deleted_at', op: 'IS NULL' },
      ] satisfies SimplePredicate[],
    };
    expect(sourceSelectSql('postgresql', select)).toEqual({
      sql: 'SELECT "id", "region" FROM "public"."orders" WHERE "region" = $1 AND "amount" >= $2 AND "status" IN ($3, $4) AND "deleted_at" IS NULL',
      params: ['eu', 10n, 'new', 'paid'],
    });
    expect(sourceSelectSql('mysql', select).sql).toBe(
      'SELECT `id`, `region` FROM `public`.`orders` WHERE `region` = ? AND `amount` >= ? AND `status` IN (?, ?) AND `deleted_at` IS NULL',
    );
    expect(sourceSelectSql('sqlite', { ...select, schema: undefined, columns: undefined, predicates: [] })).toEqual({ sql: 'SELECT * FROM "orders"', params: [] });
  });

  it('an empty IN list selects nothing, and an empty projection still counts rows', () => {
    expect(sourceSelectSql('postgresql', { schema: 's', table: 't', columns: [], predicates: [{ column: 'a', op: 'IN', values: [] }] }).sql).toBe(
      'SELECT 1 AS "_shoal_one" FROM "s"."t" WHERE 1 = 0',
    );
    expect(sourceSelectSql('mysql', { schema: 's', table: 't', columns: [], predicates: [] }).sql).toBe('SELECT 1 AS `_shoal_one` FROM `s`.`t`');
  });

  it('refuses an operator outside the pushable set', () => {
    const bad = { column: 'a', op: '; DROP TABLE t; --', value: 1 } as unknown as SimplePredicate;
    expect(() => sourceSelectSql('postgresql', { schema: 's', table: 't', columns: undefined, predicates: [bad] })).toThrow(/cannot be pushed/);
  });

  it('law: any identifier and any value round-trip through a real SQLite without injection', () => {
    const db = new Database(':memory:');
    try {
      fc.assert(
        fc.property(fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes('\0')), fc.string({ maxLength: 20 }), (name, value) => {
          db.exec(`DROP TABLE IF EXISTS ${quoteIdent('sqlite', name)}`);
          db.exec(`CREATE TABLE ${quoteIdent('sqlite', name)} (${quoteIdent('sqlite', name)} TEXT)`);
          db.prepare(`INSERT INTO ${quoteIdent('sqlite', name)} VALUES (?), ('other')`).run(value);
          const stmt = sourceSelectSql('sqlite', { schema: undefined, table: name, columns: [name], predicates: [{ column: name, op: '=', value }] });
          const rows = db.prepare(stmt.sql).raw(true).all(...(stmt.params as string[]));
          expect(rows).toEqual(value === 'other' ? [[value], [value]] : [[value]]);
        }),
        { numRuns: 150 },
      );
    } finally {
      db.close();
    }
  });
});
