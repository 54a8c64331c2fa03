/**
 * The pushdown law, shared by the unit (SQLite) and integration (PostgreSQL, MariaDB) suites:
 * for any conjunction of simple predicates, a query answers the same with the predicates and a
 * projection pushed into the source as with the whole table landed.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { TableRef } from '../../../../src/shoal/engine/catalog-entry.js';
import type { Engine } from '../../../../src/shoal/engine/engine.js';
import type { SimplePredicate } from '../../../../src/shoal/sources/simple-predicate.js';
import { collect } from './engine-fixtures.js';

export interface LawColumn {
  readonly name: string;
  /** Literal values to compare with (strings for text columns, numbers for numeric ones). */
  readonly values: readonly (string | number)[];
  /** LIKE patterns, for text columns. */
  readonly patterns?: readonly string[];
}

const sqlLiteral = (v: string | number): string => (typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`);
const q = (n: string): string => `"${n.replace(/"/g, '""')}"`;

function predicateArb(cols: readonly LawColumn[]): fc.Arbitrary<{ p: SimplePredicate; sql: string }> {
  return fc.constantFrom(...cols).chain((c) => {
    const value = fc.constantFrom(...c.values);
    const options: fc.Arbitrary<{ p: SimplePredicate; sql: string }>[] = [
      fc.tuple(fc.constantFrom('=', '<>', '<', '<=', '>', '>=' as const), value).map(([op, v]) => ({
        p: { column: c.name, op, value: v } as SimplePredicate,
        sql: `${q(c.name)} ${op} ${sqlLiteral(v)}`,
      })),
      fc.uniqueArray(value, { minLength: 1, maxLength: 3 }).map((vs) => ({
        p: { column: c.name, op: 'IN', values: vs } as SimplePredicate,
        sql: `${q(c.name)} IN (${vs.map(sqlLiteral).join(', ')})`,
      })),
      fc.constantFrom('IS NULL', 'IS NOT NULL' as const).map((op) => ({ p: { column: c.name, op } as SimplePredicate, sql: `${q(c.name)} ${op}` })),
    ];
    if (c.patterns && c.patterns.length > 0) {
      options.push(fc.constantFrom(...c.patterns).map((pat) => ({ p: { column: c.name, op: 'LIKE', value: pat } as SimplePredicate, sql: `${q(c.name)} LIKE ${sqlLiteral(pat)}` })));
    }
    return fc.oneof(...options);
  });
}

/** Check the law on `table` (exposed to SQL as `name`, keyed by `key` for a stable order). */
export async function checkPushdownLaw(
  engine: Engine,
  table: { readonly ref: TableRef; readonly name: string; readonly key: string; readonly columns: readonly LawColumn[] },
  numRuns: number,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.array(predicateArb(table.columns), { minLength: 1, maxLength: 3 }), async (conj) => {
      const where = conj.map((c) => c.sql).join(' AND ');
      const sql = `SELECT ${q(table.key)} FROM ${table.name} WHERE ${where} ORDER BY 1`;
      const whole = await collect(engine.execute(sql));
      const referenced = [...new Set([table.key, ...conj.map((c) => c.p.column)])];
      let fetched = -1;
      const pushed = await collect(
        engine.execute(sql, {
          pushdown: [{ table: table.ref, columns: referenced, predicates: conj.map((c) => c.p) }],
          onLanding: (r) => {
            fetched = r.rowsFetched;
          },
        }),
      );
      expect(pushed.rows).toEqual(whole.rows);
      expect(fetched).toBeGreaterThanOrEqual(pushed.rows.length);
    }),
    { numRuns },
  );
}
