import { describe, expect, it } from 'vitest';
import { checkDeterminism } from '../../../src/shoal/sql/index.js';

const codes = (sql: string) => checkDeterminism(sql).issues.map((i) => i.code);

describe('checkDeterminism (study §7)', () => {
  it.each([
    ['SELECT now() AS t', 'VOLATILE'],
    ['SELECT current_timestamp AS t', 'VOLATILE'],
    ['SELECT current_timestamp(3) AS t', 'VOLATILE'],
    ['SELECT current_date AS t', 'VOLATILE'],
    ['SELECT random() AS r', 'VOLATILE'],
    ['SELECT gen_random_uuid() AS u', 'VOLATILE'],
    ['SELECT clock_timestamp() AS t', 'VOLATILE'],
    ["SELECT current_setting('provisa.region') AS r", 'VOLATILE'],
    ['SELECT a FROM t LIMIT 5', 'LIMIT_NO_ORDER'],
    ['SELECT a FROM t OFFSET 5', 'LIMIT_NO_ORDER'],
    ['SELECT a FROM t FETCH FIRST 3 ROWS ONLY', 'LIMIT_NO_ORDER'],
    ['SELECT a FROM (SELECT a FROM t LIMIT 3) s ORDER BY a', 'LIMIT_NO_ORDER'],
    ['WITH c AS (SELECT a FROM t LIMIT 3) SELECT a FROM c', 'LIMIT_NO_ORDER'],
    ['SELECT a FROM t WHERE a IN (SELECT b FROM u LIMIT 1)', 'LIMIT_NO_ORDER'],
    ['SELECT a FROM t UNION SELECT b FROM u LIMIT 3', 'LIMIT_NO_ORDER'],
    ['SELECT row_number() OVER () AS r FROM t', 'WINDOW_NO_ORDER'],
    ['SELECT rank() OVER (PARTITION BY y) AS r FROM t', 'WINDOW_NO_ORDER'],
    ['SELECT first_value(x) OVER w AS f FROM t WINDOW w AS (PARTITION BY y)', 'WINDOW_NO_ORDER'],
    ["SELECT string_agg(x, ',') AS s FROM t", 'AGG_ORDER'],
    ['SELECT array_agg(x) AS s FROM t', 'AGG_ORDER'],
    ['SELECT any_value(x) AS s FROM t', 'ARBITRARY'],
    ['SELECT count(*) AS n FROM t TABLESAMPLE BERNOULLI (50)', 'SAMPLE'],
    ['SELECT DISTINCT ON (a) a, b FROM t', 'DISTINCT_ON_NO_ORDER'],
    ['SELECT DISTINCT ON (a) a, b FROM t ORDER BY a', 'DISTINCT_ON_PARTIAL_ORDER'],
  ])('flags %s', (sql, code) => {
    const r = checkDeterminism(sql);
    expect(r.ok).toBe(false);
    expect(r.issues.map((i) => i.code)).toContain(code);
  });

  it.each([
    'SELECT a, sum(b) AS s FROM t GROUP BY a',
    'SELECT sum(x) OVER () AS s FROM t',
    'SELECT lag(x) OVER w AS l FROM t WINDOW w AS (PARTITION BY y ORDER BY z)',
    'SELECT lag(x) OVER (w ORDER BY z) AS l FROM t WINDOW w AS (PARTITION BY y)',
    "SELECT string_agg(x, ',' ORDER BY x) AS s FROM t",
    'SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) AS p FROM t',
    'SELECT DISTINCT ON (a) a, b FROM t ORDER BY a, b',
    'SELECT a FROM t ORDER BY a LIMIT 5',
    "SELECT s.segment, o.region, SUM(o.amount) AS revenue FROM sales_pg.public.orders o JOIN segments_csv.default.customer_segments s ON o.customer_id = s.customer_id GROUP BY s.segment, o.region",
  ])('admits %s', (sql) => {
    expect(codes(sql)).toEqual([]);
    expect(checkDeterminism(sql).ok).toBe(true);
  });

  it('finds a volatile call anywhere, and rejects non-queries', () => {
    const r = checkDeterminism('SELECT a,\n  now() AS t FROM x');
    expect(r.issues[0]?.code).toBe('VOLATILE');
    expect(() => checkDeterminism('DELETE FROM t')).toThrow(expect.objectContaining({ code: 'SQL_NOT_SELECT' }));
    expect(() => checkDeterminism('SELEC 1')).toThrow(expect.objectContaining({ code: 'SQL_SYNTAX' }));
  });
});
