/**
 * The 53-query corpus of the governance study (re-typed from
 * shared/design/sql-governance-prototype/corpus.ts, a design artefact), with the study's measured
 * verdicts on the generate() path (§9): per target, `=` same answer as PostgreSQL, `≠` silently
 * different, `E` engine error, `-` not run (rejected by the guard or unparseable).
 */
export const corpus: readonly (readonly [string, string])[] = [
  ['Q1 pricing summary', `SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price,
  sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price, sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
  avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc, count(*) AS count_order
FROM lineitem
WHERE l_shipdate <= date '1998-12-01' - interval '90 days'
GROUP BY l_returnflag, l_linestatus
ORDER BY l_returnflag, l_linestatus`],
  ['Q3 shipping priority', `SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority
FROM customer, orders, lineitem
WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey
  AND o_orderdate < date '1995-03-15' AND l_shipdate > date '1995-03-15'
GROUP BY l_orderkey, o_orderdate, o_shippriority
ORDER BY revenue DESC, o_orderdate
LIMIT 10`],
  ['Q5 local supplier volume', `SELECT n_name, sum(l_extendedprice * (1 - l_discount)) AS revenue
FROM customer, orders, lineitem, supplier, nation, region
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_suppkey = s_suppkey
  AND c_nationkey = s_nationkey AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey
  AND r_name = 'AMERICA' AND o_orderdate >= date '1994-01-01' AND o_orderdate < date '1994-01-01' + interval '3 year'
GROUP BY n_name
ORDER BY revenue DESC`],
  ['Q13 customer distribution', `SELECT c_count, count(*) AS custdist
FROM (SELECT c_custkey, count(o_orderkey)
      FROM customer LEFT OUTER JOIN orders ON c_custkey = o_custkey AND o_comment NOT LIKE '%special%requests%'
      GROUP BY c_custkey) AS c_orders (c_custkey, c_count)
GROUP BY c_count
ORDER BY custdist DESC, c_count DESC`],
  ['Q18 large volume customer', `SELECT c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, sum(l_quantity)
FROM customer, orders, lineitem
WHERE o_orderkey IN (SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING sum(l_quantity) > 100)
  AND c_custkey = o_custkey AND o_orderkey = l_orderkey
GROUP BY c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice
ORDER BY o_totalprice DESC, o_orderdate
LIMIT 100`],
  ['window rank + running sum', `SELECT o_custkey, o_orderkey, rank() OVER (PARTITION BY o_custkey ORDER BY o_totalprice DESC) AS rk,
  sum(o_totalprice) OVER (PARTITION BY o_custkey ORDER BY o_orderdate, o_orderkey ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running
FROM orders`],
  ['named window lag/lead', `SELECT o_orderkey, lag(o_totalprice, 1, 0) OVER w AS prev, lead(o_orderdate) OVER w AS nxt
FROM orders WINDOW w AS (PARTITION BY o_custkey ORDER BY o_orderdate, o_orderkey)`],
  ['GROUPING SETS', `SELECT l_returnflag, l_linestatus, count(*), grouping(l_returnflag) AS g FROM lineitem GROUP BY GROUPING SETS ((l_returnflag), (l_linestatus), ())`],
  ['ROLLUP', `SELECT l_returnflag, l_shipmode, sum(l_quantity) FROM lineitem GROUP BY ROLLUP (l_returnflag, l_shipmode)`],
  ['CUBE', `SELECT l_returnflag, l_linestatus, count(*) FROM lineitem GROUP BY CUBE (l_returnflag, l_linestatus)`],
  ['FILTER clause', `SELECT count(*) FILTER (WHERE l_discount > 0.05) AS hi, sum(l_quantity) FILTER (WHERE l_discount <= 0.05) AS lo FROM lineitem`],
  ['JSON ->> and ->', `SELECT ('{"a": {"b": "x"}, "n": 5}'::jsonb) ->> 'n' AS n, ('{"a": {"b": "x"}}'::jsonb) -> 'a' ->> 'b' AS ab`],
  [':: casts', `SELECT o_orderkey::text || '-' || o_custkey::varchar AS k, o_totalprice::int AS ip, '42'::integer + 1 AS f, o_orderdate::timestamp AS ts FROM orders WHERE o_orderkey < 5`],
  ['ILIKE', `SELECT c_name FROM customer WHERE c_name ILIKE '%000%1' OR c_comment ILIKE 'SPECIAL%'`],
  ['array literal + subscript', `SELECT ARRAY[1, 2, 3] AS a, (ARRAY['x', 'y'])[1] AS first, array_length(ARRAY[1, 2, 3], 1) AS n`],
  ['= ANY(array)', `SELECT count(*) FROM orders WHERE o_orderpriority = ANY (ARRAY['1-URGENT', '2-HIGH'])`],
  ['quoted identifiers with spaces', `SELECT "order key", "Total Price" FROM (SELECT o_orderkey AS "order key", o_totalprice AS "Total Price" FROM orders) AS "my orders" WHERE "order key" < 5`],
  ['unicode literals/identifiers', `SELECT 'Ünïcödé ✓ 日本' AS "列", length('日本語') AS n, upper('straße') AS u`],
  ['comments', `SELECT /* inline */ count(*) -- trailing
FROM orders /* multi
line */ WHERE o_orderkey > 0`],
  ['string escapes (standard)', `SELECT 'it''s' AS a, 'back\\slash' AS b, 'x' 'y' AS c`],
  ['E-string escapes', `SELECT E'tab\\there' AS a, E'quote\\'s' AS b`],
  ['dollar quoting', `SELECT $$it's$$ AS a, $t$x\\y$t$ AS b`],
  ['CASE', `SELECT o_orderkey, CASE WHEN o_totalprice > 100000 THEN 'big' WHEN o_totalprice > 50000 THEN 'mid' ELSE 'small' END AS size FROM orders`],
  ['COALESCE/NULLIF/GREATEST', `SELECT coalesce(NULL, c_comment) AS c, nullif(c_nationkey, 3) AS n, greatest(c_acctbal, 0) AS g, least(1, 2, 3) AS l FROM customer`],
  ['date arithmetic', `SELECT o_orderdate + 30 AS plus30, o_orderdate + interval '1 month' AS plus1m, date_trunc('month', o_orderdate) AS m, extract(year FROM o_orderdate) AS y, o_orderdate - date '1994-01-01' AS days FROM orders WHERE o_orderkey < 5`],
  ['NOT IN subquery', `SELECT count(*) FROM customer WHERE c_custkey NOT IN (SELECT o_custkey FROM orders)`],
  ['correlated scalar subquery', `SELECT c_name, (SELECT max(o_totalprice) FROM orders o WHERE o.o_custkey = c.c_custkey) AS mx FROM customer c`],
  ['EXISTS / NOT EXISTS', `SELECT count(*) FROM customer c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.o_custkey = c.c_custkey) AND NOT EXISTS (SELECT 1 FROM nation n WHERE n.n_nationkey = c.c_nationkey AND n.n_name = 'FRANCE')`],
  ['UNION + ORDER BY/LIMIT', `(SELECT c_custkey FROM customer WHERE c_acctbal > 5000) UNION (SELECT o_custkey FROM orders WHERE o_totalprice > 150000) ORDER BY 1 LIMIT 10`],
  ['INTERSECT / EXCEPT', `SELECT c_custkey FROM customer INTERSECT SELECT o_custkey FROM orders EXCEPT SELECT c_custkey FROM customer WHERE c_nationkey = 1`],
  ['recursive CTE', `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10) SELECT sum(i) FROM n`],
  ['LATERAL', `SELECT c.c_custkey, t.o_orderkey FROM customer c, LATERAL (SELECT o_orderkey FROM orders o WHERE o.o_custkey = c.c_custkey ORDER BY o_totalprice DESC, o_orderkey LIMIT 1) t`],
  ['DISTINCT ON', `SELECT DISTINCT ON (o_custkey) o_custkey, o_orderkey FROM orders ORDER BY o_custkey, o_totalprice DESC`],
  ['string_agg ORDER BY', `SELECT c_nationkey, string_agg(c_name, ',' ORDER BY c_name) AS names FROM customer GROUP BY c_nationkey`],
  ['integer division/modulo', `SELECT 7 / 2 AS a, 7 % 3 AS b, 7.0 / 2 AS c, -7 / 2 AS d`],
  ['string functions', `SELECT upper(c_name), lower(c_name), length(c_name), substr(c_name, 1, 4), position('#' in c_name), replace(c_name, '#', '-'), trim('  x  '), lpad('7', 3, '0') FROM customer WHERE c_custkey < 3`],
  ['pipe-concat vs concat() with NULL', `SELECT 'a' || NULL AS x, concat('a', NULL, 'b') AS y`],
  ['boolean expressions', `SELECT c_custkey, c_acctbal > 0 AS positive, (c_acctbal > 0) IS NOT TRUE AS np, true AND NOT false AS t FROM customer WHERE c_custkey < 4`],
  ['IS DISTINCT FROM', `SELECT count(*) FROM customer WHERE nullif(c_nationkey, 2) IS DISTINCT FROM 3`],
  ['regex ~ operator', `SELECT count(*) FROM customer WHERE c_name ~ '^Customer#000[1-3]'`],
  ['generate_series', `SELECT g FROM generate_series(1, 5) AS g`],
  ['VALUES in FROM', `SELECT v.x, v.y FROM (VALUES (1, 'a'), (2, 'b')) AS v(x, y)`],
  ['NULLS LAST', `SELECT c_custkey FROM customer ORDER BY nullif(c_nationkey, 2) DESC NULLS LAST, c_custkey LIMIT 5`],
  ['OFFSET/FETCH FIRST', `SELECT o_orderkey FROM orders ORDER BY o_orderkey OFFSET 2 ROWS FETCH FIRST 3 ROWS ONLY`],
  ['round/numeric', `SELECT round(avg(o_totalprice)::numeric, 2) AS a, round(2.5) AS b, round(-2.5) AS c, trunc(2.7) AS d FROM orders`],
  ['COUNT DISTINCT + HAVING', `SELECT o_orderpriority, count(DISTINCT o_custkey) FROM orders GROUP BY 1 HAVING count(*) > 5 ORDER BY 1`],
  ['multi-CTE', `WITH big AS (SELECT * FROM orders WHERE o_totalprice > 100000), cnt AS (SELECT o_custkey, count(*) n FROM big GROUP BY 1)
SELECT c_name, n FROM customer JOIN cnt ON c_custkey = o_custkey ORDER BY n DESC, c_name LIMIT 5`],
  ['operator precedence (arith)', `SELECT 1 + 2 * 3 - 4 / 2 AS a, 2 ^ 3 ^ 2 AS b, -2 ^ 2 AS c, 10 - 2 - 3 AS d, 'a' || 1 + 2 AS e`],
  ['operator precedence (bool)', `SELECT NOT 1 = 2 AND 3 = 3 AS a, true OR false AND false AS b, 3 BETWEEN 1 AND 5 AND false AS c, -'5'::int AS d`],
  ['date/interval literals', `SELECT date '2024-02-29' + interval '1 year' AS a, timestamp '2024-01-31 10:00:00' + interval '2 hours' AS b, '2024-01-31'::date + 1 AS c, interval '1 day' * 3 AS d`],
  ['TABLESAMPLE', `SELECT count(*) >= 0 AS ok FROM orders TABLESAMPLE BERNOULLI (50)`],
  ['IN list with NULL', `SELECT count(*) FROM customer WHERE c_nationkey IN (1, 2, NULL) OR c_nationkey NOT IN (3, NULL)`],
  ['governed customers (RLS+mask)', `SELECT c.name, c.email, count(p.id) AS n, sum(p.amount) AS total FROM customers c LEFT JOIN payments p ON p.customer_id = c.id GROUP BY c.name, c.email ORDER BY c.name`],
];

export type Verdict = '=' | '≠' | 'E' | '-';
/** Study §9 per query (1-based, corpus order): [DuckDB, SQLite, MariaDB] on the generate() path. */
export const STUDY: readonly (readonly [Verdict, Verdict, Verdict])[] = [
  ['=', 'E', 'E'], ['=', 'E', '='], ['=', 'E', 'E'], ['=', 'E', 'E'], ['=', '=', '='], // 1-5
  ['=', '=', '='], ['=', '=', 'E'], ['=', 'E', 'E'], ['=', 'E', 'E'], ['=', 'E', 'E'], // 6-10
  ['=', '=', 'E'], ['-', '-', '-'], ['=', '≠', '='], ['=', 'E', 'E'], ['=', 'E', 'E'], // 11-15
  ['=', 'E', 'E'], ['=', '=', '='], ['≠', '=', '≠'], ['=', '=', '='], ['-', '-', '-'], // 16-20
  ['-', '-', '-'], ['-', '-', '-'], ['=', '=', '='], ['=', 'E', '='], ['=', 'E', 'E'], // 21-25
  ['=', '=', '='], ['=', '=', '='], ['=', '=', '='], ['=', 'E', '='], ['=', '=', '='], // 26-30
  ['=', '=', '='], ['=', 'E', 'E'], ['=', 'E', 'E'], ['=', '=', 'E'], ['≠', '=', '≠'], // 31-35
  ['=', 'E', '='], ['=', '=', '≠'], ['=', '=', '='], ['=', '=', 'E'], ['E', 'E', 'E'], // 36-40
  ['≠', 'E', 'E'], ['=', 'E', 'E'], ['=', '=', 'E'], ['=', 'E', 'E'], ['=', '=', 'E'], // 41-45
  ['=', '=', '='], ['=', '=', '='], ['=', '≠', '≠'], ['=', '=', '='], ['=', 'E', 'E'], // 46-50
  ['=', 'E', 'E'], ['=', '=', '='], ['=', '=', '='], //                                   51-53
];

/** Study guard verdicts that are not `accept`. */
export const STUDY_REJECTS: Readonly<Record<number, string>> = { 12: 'SQL_SYNTAX', 21: 'SQL_LITERAL_NOT_ALLOWED', 22: 'SQL_LITERAL_NOT_ALLOWED' };
