/**
 * The client's query alone (src/shoal/sql/bare-query.ts): planned with no RLS filter and no mask,
 * over empty stand-ins typed as the catalog declares, holding only the columns the role sees. It
 * binds in DuckDB exactly when the client's SQL does: a correct query binds (whatever its
 * policies), a grouping or typing mistake of its own does not.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareQuery } from '../../../src/shoal/sql/bare-query.js';
import { createCatalog } from '../../../src/shoal/sql/index.js';
import { salesSpec } from './fixtures.js';

const catalog = createCatalog(salesSpec());
const vars = { 'provisa.region': 'EU' };
let db: DuckDBInstance;
beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:');
});
afterAll(() => db.closeSync());

/** Binder Error text of the bare query, or 'binds'. */
async function bind(sql: string, role = 'analyst'): Promise<string> {
  const c = await db.connect();
  try {
    await c.run(bareQuery({ sql, role, vars }, catalog, 'duckdb'));
    return 'binds';
  } catch (e) {
    return (e as Error).message.split('\n')[0]!;
  } finally {
    c.closeSync();
  }
}

describe('the bare query', () => {
  it('carries no row filter, no mask and no engine relation: only typed, empty stand-ins of the visible columns', () => {
    const sql = bareQuery({ sql: 'SELECT email, signup FROM sales.customers', role: 'analyst', vars }, catalog, 'duckdb');
    expect(sql).not.toMatch(/current_setting|region = |regexp|date_trunc|"sales"\."customers"/i);
    expect(sql).toContain('CAST(NULL AS DATE) AS "signup"');
    expect(sql).toContain('CAST(NULL AS VARCHAR) AS "email"');
    expect(sql).not.toContain('"ssn"'); // hidden from the analyst
    expect(bareQuery({ sql: 'SELECT ssn FROM sales.customers', role: 'admin', vars }, catalog, 'duckdb')).toContain('"ssn"');
  });

  it('binds a correct query, joins and CTEs included', async () => {
    expect(await bind('SELECT region, count(*) FROM sales.customers GROUP BY region')).toBe('binds');
    expect(await bind('WITH c AS (SELECT id, region FROM sales.customers) SELECT c.region, sum(p.amount) FROM c JOIN sales.payments p ON p.customer_id = c.id GROUP BY c.region')).toBe('binds');
  });

  it("fails to bind the client's own grouping, aggregate and typing mistakes", async () => {
    expect(await bind('SELECT name, count(*) FROM sales.customers GROUP BY region')).toMatch(/^Binder Error: column "name" must appear in the GROUP BY clause/);
    expect(await bind('SELECT id FROM sales.customers WHERE sum(score) > 1')).toMatch(/^Binder Error: WHERE clause cannot contain aggregates/);
    expect(await bind('SELECT id + name FROM sales.customers')).toMatch(/^Binder Error: No function matches/);
  });
  it('gives no stand-in (throws: no verdict) when the query may read a column whose type it cannot spell, which would bind as an integer', async () => {
    const spec = salesSpec();
    const withTags = createCatalog({
      ...spec,
      tables: spec.tables.map((t) => (t.tableKey === 'sales.customers' ? { ...t, columns: [...t.columns, { name: 'tags', type: 'text[]' }] } : t)),
    });
    const plan = (sql: string) => () => bareQuery({ sql, role: 'analyst', vars }, withTags, 'duckdb');
    expect(plan('SELECT array_length(tags, 1), count(*) FROM sales.customers GROUP BY region')).toThrow(/no typed stand-in/);
    expect(plan('SELECT * FROM sales.customers')).toThrow(/no typed stand-in/);
    // a query that cannot read it still gets its stand-ins, and its own mistake is still told
    const c = await db.connect();
    try {
      await expect(c.run(plan('SELECT name, count(*) FROM sales.customers GROUP BY region')())).rejects.toThrow(/must appear in the GROUP BY clause/);
    } finally {
      c.closeSync();
    }
  });
});
