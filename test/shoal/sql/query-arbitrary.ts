/** Random PostgreSQL-flavoured queries over the governed tables sales.customers and sales.payments. */
import fc from 'fast-check';
import { REGIONS } from './duckdb-harness.js';

const COLS = ['id', 'name', 'email', 'region', 'signup', 'score', 'tier'] as const;

const colsArb = (q: string) => fc.subarray([...COLS], { minLength: 1 }).map((cs) => cs.map((c) => `${q}.${c}`).join(', '));
const atomArb = (q: string) => fc.oneof(
  fc.integer({ min: 0, max: 100 }).map((n) => `${q}.score > ${n}`),
  fc.constantFrom('gold', 'silver', 'bronze').map((t) => `${q}.tier = '${t}'`),
  fc.constantFrom(...REGIONS).map((r) => `${q}.region <> '${r}'`),
  fc.constantFrom('a', 'u', '@', '*').map((s) => `${q}.email LIKE '%${s}%'`),
  fc.integer({ min: 1, max: 12 }).map((m) => `${q}.signup >= DATE '2024-${String(m).padStart(2, '0')}-01'`),
  fc.constant(`${q}.score IS NULL`),
  fc.constant('TRUE'),
);
const predArb = (q: string) => fc.oneof(
  atomArb(q),
  fc.tuple(atomArb(q), fc.constantFrom('AND', 'OR'), atomArb(q)).map(([a, op, b]) => `(${a} ${op} ${b})`),
);
const n = fc.integer({ min: 0, max: 500 });

/** Random queries over sales.customers (governed) and sales.payments. */
export const queryArb: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(colsArb('c'), predArb('c')).map(([cs, p]) => `SELECT ${cs} FROM sales.customers c WHERE ${p}`),
  fc.tuple(colsArb('c'), fc.constantFrom('', 'LEFT', 'RIGHT', 'FULL'), predArb('c')).map(([cs, k, p]) =>
    `SELECT ${cs}, p.amount FROM sales.customers c ${k} JOIN sales.payments p ON p.customer_id = c.id WHERE ${p} OR c.id IS NULL`),
  predArb('a').map((p) => `SELECT a.id, a.email, b.name FROM sales.customers a JOIN sales.customers b ON a.tier = b.tier AND a.id < b.id WHERE ${p}`),
  fc.tuple(colsArb('c'), n).map(([cs, k]) => `SELECT ${cs} FROM sales.customers c WHERE c.id IN (SELECT p.customer_id FROM sales.payments p WHERE p.amount > ${k})`),
  predArb('c').map((p) => `SELECT p.id, p.amount FROM sales.payments p WHERE p.customer_id IN (SELECT c.id FROM sales.customers c WHERE ${p})`),
  predArb('c').map((p) => `SELECT s.* FROM (SELECT * FROM sales.customers c WHERE ${p}) s`),
  fc.constant('SELECT c.id, (SELECT max(x.email) FROM sales.customers x WHERE x.tier = c.tier) AS m FROM sales.customers c'),
  fc.tuple(colsArb('c'), predArb('c')).map(([cs, p]) => `WITH t AS (SELECT ${cs} FROM sales.customers c WHERE ${p}) SELECT * FROM t`),
  predArb('c').map((p) => `WITH customers AS (SELECT * FROM sales.customers) SELECT c.name, c.email FROM customers c WHERE ${p}`),
  fc.tuple(predArb('c'), fc.constantFrom('UNION', 'UNION ALL', 'EXCEPT', 'INTERSECT'), predArb('c')).map(([a, op, b]) =>
    `SELECT c.email, c.name FROM sales.customers c WHERE ${a} ${op} SELECT c.email, c.name FROM sales.customers c WHERE ${b}`),
  fc.tuple(fc.constantFrom('region', 'tier', 'signup', 'email'), fc.integer({ min: 0, max: 5 })).map(([g, k]) =>
    `SELECT c.${g}, count(*) AS n, min(c.email) AS e, max(c.signup) AS s, sum(c.score) AS sc, min(c.name) AS nm FROM sales.customers c GROUP BY c.${g} HAVING count(*) > ${k}`),
  fc.tuple(fc.constantFrom('EXISTS', 'NOT EXISTS'), predArb('c')).map(([e, p]) =>
    `SELECT p.id, p.customer_id FROM sales.payments p WHERE ${e} (SELECT 1 FROM sales.customers c WHERE c.id = p.customer_id AND ${p})`),
  fc.constantFrom(
    'SELECT * FROM sales.customers',
    'SELECT c.*, p.amount FROM sales.customers c JOIN sales.payments p ON p.customer_id = c.id',
    'SELECT c.id, l.amount FROM sales.customers c, LATERAL (SELECT max(p.amount) AS amount FROM sales.payments p WHERE p.customer_id = c.id) l',
    'SELECT count(*) AS n, min(c.email) AS e FROM (sales.customers c JOIN sales.payments p ON p.customer_id = c.id)',
    'SELECT length(c.email) AS l, upper(c.email) AS u, c.email || c.name AS x FROM sales.customers c',
    'SELECT c.tier, string_agg(c.email, \',\' ORDER BY c.email) AS es FROM sales.customers c GROUP BY c.tier',
    'SELECT c.id, row_number() OVER (PARTITION BY c.tier ORDER BY c.email, c.id) AS rn FROM sales.customers c',
    'SELECT customers.email FROM sales.customers',
    'SELECT email FROM sales_pg.public.customers WHERE score > 10',
  ),
);

