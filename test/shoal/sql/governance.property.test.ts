/**
 * Law S6 as a property: over random queries on governed tables (joins, subqueries, CTEs, set
 * operations, aggregates, LATERAL), executed on DuckDB over generated data,
 *  - the governed query on the full data returns exactly the multiset the original query
 *    returns on an oracle copy holding only the rows and masked values the role may see;
 *  - no raw value of a masked column, no hidden column value, and no row outside the role's
 *    RLS predicate appears in any cell.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planQuery } from '../../../src/shoal/sql/index.js';
import { REGIONS, loadTables, multiset, openDuck, salesData } from './duckdb-harness.js';
import { salesCatalog } from './fixtures.js';

const data = salesData();
const customers = data.find((t) => t.name === 'customers')!.rows;
const rawEmails = customers.map((r) => String(r[2]).toLowerCase());
const ssns = customers.map((r) => String(r[7]).toLowerCase());
const catalog = salesCatalog({ id: 'sales-pg', type: 'postgresql' });

const COLS = ['id', 'name', 'email', 'region', 'signup', 'score', 'tier'] as const;
const WEIRD_REGION = "O'Brien\\' OR 1=1 --";

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
const queryArb: fc.Arbitrary<string> = fc.oneof(
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

/** The oracle holds every table under `sales`: the physical name form maps there too. */
const oracleSql = (sql: string) => sql.replace(/sales_pg\.public\./g, 'sales.');

type Viewer = { role: string; region?: string };

/** The oracle: a database holding only what the viewer may see, built with plain DuckDB SQL. */
async function oracleFor(v: Viewer): Promise<DuckDBConnection> {
  const c = await openDuck();
  await loadTables(c, 'full_data', data);
  await c.run('CREATE SCHEMA sales');
  await c.run('CREATE TABLE sales.payments AS SELECT * FROM full_data.payments');
  if (v.role === 'admin') await c.run('CREATE TABLE sales.customers AS SELECT * FROM full_data.customers');
  else {
    await c.run(`CREATE TABLE sales.customers AS SELECT id, name, regexp_replace(email, '^(.{2}).*(@.*)$', '\\1***\\2') AS email, region,
      CAST(date_trunc('month', signup) AS DATE) AS signup, 0 AS score, tier FROM full_data.customers WHERE region = '${v.region!.replace(/'/g, "''")}'`);
  }
  return c;
}

const viewers: Viewer[] = [
  { role: 'admin' },
  ...REGIONS.map((region) => ({ role: 'analyst', region })),
  { role: 'analyst', region: WEIRD_REGION },
];

describe('governance on the engine route (DuckDB)', () => {
  let engine: DuckDBConnection;
  const oracles = new Map<string, DuckDBConnection>();
  const key = (v: Viewer) => `${v.role}/${v.region ?? ''}`;
  beforeAll(async () => {
    engine = await openDuck();
    await loadTables(engine, 'sales', data);
    for (const v of viewers) oracles.set(key(v), await oracleFor(v));
  });
  afterAll(() => {
    engine?.closeSync();
    for (const c of oracles.values()) c.closeSync();
  });

  it('a governed query returns exactly what the original returns on the oracle copy (no row outside RLS, no unmasked cell)', async () => {
    await fc.assert(
      fc.asyncProperty(queryArb, fc.constantFrom(...viewers), async (sql, v) => {
        const plan = planQuery({ sql, role: v.role, vars: v.region ? { 'provisa.region': v.region } : {} }, catalog, { route: 'engine' });
        const got = await multiset(engine, plan.sql);
        const want = await multiset(oracles.get(key(v))!, oracleSql(sql));
        expect(got).toEqual(want);
        if (v.role !== 'admin') {
          const cells = got.join('\n').toLowerCase();
          for (const e of rawEmails) expect(cells).not.toContain(e);
          for (const s of ssns) expect(cells).not.toContain(s);
          for (const other of REGIONS.filter((r) => r !== v.region)) expect(cells).not.toContain(`-${other.toLowerCase()}"`);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('a capped role gets at most its cap, and only rows the oracle allows', async () => {
    const oracle = oracles.get('analyst/EU')!;
    await fc.assert(
      fc.asyncProperty(queryArb, async (sql) => {
        const plan = planQuery({ sql, role: 'intern', vars: { 'provisa.region': 'EU' } }, catalog, { route: 'engine' });
        expect(plan.rowCap).toBe(5);
        const got = await multiset(engine, plan.sql);
        const want = await multiset(oracle, oracleSql(sql));
        expect(got.length).toBeLessThanOrEqual(5);
        const pool = [...want];
        for (const row of got) {
          const i = pool.indexOf(row);
          expect(i, `row ${row} is not in the oracle's answer`).toBeGreaterThanOrEqual(0);
          pool.splice(i, 1);
        }
      }),
      { numRuns: 40 },
    );
  });
});
