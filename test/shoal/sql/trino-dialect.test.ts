/**
 * Governed SQL in Trino's dialect, by the text generated (the real-Trino certification is
 * test/trino/corpus-parity.test.ts): the rewrites that keep PostgreSQL's meaning, and the refusals.
 */
import { describe, expect, it } from 'vitest';
import { planQuery } from '../../../src/shoal/sql/index.js';
import { salesCatalog } from './fixtures.js';

const trino = (sql: string, role = 'analyst') => planQuery({ sql, role, vars: { 'provisa.region': 'EU' } }, salesCatalog(), { route: 'engine', engine: 'trino' }).sql;

describe('the Trino dialect', () => {
  it("writes PostgreSQL's one-string INTERVAL as Trino's value and unit (weeks as days)", () => {
    expect(trino("SELECT o_orderdate - interval '90 days' AS d FROM orders")).toContain("INTERVAL '90' DAY");
    expect(trino("SELECT o_orderdate + interval '2 weeks' AS d FROM orders")).toContain("INTERVAL '14' DAY");
    expect(trino("SELECT o_orderdate + interval '3 months' AS d FROM orders")).toContain("INTERVAL '3' MONTH");
    expect(() => trino("SELECT o_orderdate + interval '1 day 2 hours' AS d FROM orders")).toThrow(expect.objectContaining({ code: 'SQL_UNSUPPORTED' }));
  });

  it('makes NULL ordering explicit, and keeps OFFSET before LIMIT', () => {
    const sql = trino('SELECT o_orderkey FROM orders ORDER BY o_orderkey DESC LIMIT 3 OFFSET 2');
    expect(sql).toMatch(/DESC NULLS FIRST/);
    expect(sql).toMatch(/OFFSET 2 LIMIT 3/);
  });

  it("concat() skips NULLs as PostgreSQL's does; avg is computed in DOUBLE", () => {
    expect(trino("SELECT concat('a', NULL, c_custkey) AS x FROM customer")).toContain("CONCAT(COALESCE(CAST('a' AS VARCHAR), ''), COALESCE(CAST(NULL AS VARCHAR), ''), COALESCE(CAST(c_custkey AS VARCHAR), ''))");
    expect(trino('SELECT avg(c_acctbal) AS a FROM customer')).toContain('AVG(CAST(c_acctbal AS DOUBLE))');
  });

  it('rewrites IS NOT TRUE and ILIKE, which Trino does not have', () => {
    expect(trino('SELECT (c_acctbal > 0) IS NOT TRUE AS np FROM customer')).toContain('NOT COALESCE((c_acctbal > 0), FALSE)');
    expect(trino("SELECT c_name FROM customer WHERE c_name ILIKE '%x%'")).toContain("LOWER(c_name) LIKE LOWER('%x%')");
  });

  it('a regex mask reads $n group references; a user regexp_replace is refused', () => {
    const sql = trino('SELECT email FROM customers');
    expect(sql).toContain("'$1***$2'");
    expect(sql).not.toContain('\\1');
    expect(() => trino("SELECT regexp_replace(c_name, 'C(.)', '\\1', 'g') AS x FROM customer")).toThrow(expect.objectContaining({ code: 'SQL_UNSUPPORTED' }));
  });
});
