/**
 * Law S6 as a property: over random queries on governed tables (joins, subqueries, CTEs, set
 * operations, aggregates, LATERAL), executed on DuckDB over generated data,
 *  - the governed query on the full data returns exactly the multiset the original query
 *    returns on an oracle copy holding only the rows and masked values the role may see;
 *  - no raw value of a masked column, no hidden column value, and no row outside the role's
 *    RLS predicate appears in any cell;
 *  - the governed SQL's result columns carry the names the plan reports (PostgreSQL's names);
 *  - a regex mask fails closed: over random mask-resistant e-mails (newlines, no `@`, unicode,
 *    empty, very long) the answer equals an oracle masked by the reference meaning, and no
 *    raw value's secret token appears in any cell.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planQuery } from '../../../src/shoal/sql/index.js';
import { REGIONS, type Table, loadTables, multiset, openDuck, salesData } from './duckdb-harness.js';
import { TINY_VALUES, maskResistantArb, referenceMask, secretToken } from './mask-resistant.js';
import { queryArb } from './query-arbitrary.js';
import { salesCatalog } from './fixtures.js';

const data = salesData();
const customers = data.find((t) => t.name === 'customers')!.rows;
const rawEmails = customers.map((r) => String(r[2]).toLowerCase());
const ssns = customers.map((r) => String(r[7]).toLowerCase());
const catalog = salesCatalog({ id: 'sales-pg', type: 'postgresql' });

const WEIRD_REGION = "O'Brien\\' OR 1=1 --";

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
      { numRuns: 120 },
    );
  }, 300_000);

  it('the governed SQL returns its columns under the names the plan reports, which are the names the original query has on the oracle', async () => {
    await fc.assert(
      fc.asyncProperty(queryArb, fc.constantFrom(...viewers), async (sql, v) => {
        const plan = planQuery({ sql, role: v.role, vars: v.region ? { 'provisa.region': v.region } : {} }, catalog, { route: 'engine' });
        const names = (await engine.runAndReadAll(plan.sql)).columnNames();
        expect(names, plan.sql).toEqual(plan.columns.map((c) => c.name));
        // DuckDB names unaliased expressions its own way (count_star()): compare only columns and aliases
        const oracle = (await oracles.get(key(v))!.runAndReadAll(oracleSql(sql))).columnNames();
        names.forEach((n, i) => {
          if (/^[a-z_][a-z0-9_]*$/.test(oracle[i] ?? '') && oracle[i] !== 'count_star') expect(n, sql).toBe(oracle[i]);
        });
      }),
      { numRuns: 60 },
    );
  }, 300_000);

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
  }, 300_000);

  it('a regex mask fails closed: a value its pattern does not match is masked entirely, never passed through', async () => {
    const base = salesData();
    const rowsOf = (name: string) => base.find((t) => t.name === name)!;
    const customersArb = fc.tuple(...rowsOf('customers').rows.map((_, i) => fc.oneof({ weight: 5, arbitrary: maskResistantArb(i + 1) }, { weight: 1, arbitrary: fc.constantFrom(...TINY_VALUES) })));
    const viewersMasked = viewers.filter((v) => v.role !== 'admin');
    const live = await openDuck();
    const oracle = await openDuck();
    try {
      await fc.assert(
        fc.asyncProperty(customersArb, queryArb, fc.constantFrom(...viewersMasked), async (emails, sql, v) => {
          const customers: Table = { ...rowsOf('customers'), rows: rowsOf('customers').rows.map((r, i) => [r[0], r[1], emails[i], ...r.slice(3)]) };
          await loadTables(live, 'sales', [customers, rowsOf('payments')]);
          // the oracle: the reference meaning of the mask, computed outside SQL
          const masked: Table = { name: 'customers', cols: customers.cols, rows: customers.rows.map((r) => [r[0], r[1], referenceMask(r[2] as string), ...r.slice(3)]) };
          await loadTables(oracle, 'full_data', [masked, rowsOf('payments')]);
          await oracle.run('CREATE SCHEMA IF NOT EXISTS sales');
          await oracle.run('CREATE OR REPLACE TABLE sales.payments AS SELECT * FROM full_data.payments');
          await oracle.run(`CREATE OR REPLACE TABLE sales.customers AS SELECT id, name, email, region, CAST(date_trunc('month', signup) AS DATE) AS signup, 0 AS score, tier
            FROM full_data.customers WHERE region = '${v.region!.replace(/'/g, "''")}'`);
          const plan = planQuery({ sql, role: v.role, vars: { 'provisa.region': v.region! } }, catalog, { route: 'engine' });
          const got = await multiset(live, plan.sql);
          const cells = got.join('\n').toLowerCase();
          customers.rows.forEach((_, i) => expect(cells, `raw e-mail of row ${i + 1} leaked: ${sql}`).not.toContain(secretToken(i + 1)));
          expect(got).toEqual(await multiset(oracle, oracleSql(sql)));
        }),
        { numRuns: 40 },
      );
    } finally {
      live.closeSync();
      oracle.closeSync();
    }
  }, 300_000);
});
