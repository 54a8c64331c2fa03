import { describe, expect, it } from 'vitest';
import { ShoalError } from '../../../src/shoal/errors.js';
import { createCatalog, planQuery } from '../../../src/shoal/sql/index.js';
import { salesCatalog, salesSpec, salesTables } from './fixtures.js';

const catalog = salesCatalog();
const EU = { 'provisa.region': 'EU' };

function fails(sql: string, role = 'analyst', vars: Record<string, string> = EU): ShoalError {
  try {
    planQuery({ sql, role, vars }, catalog);
  } catch (e) {
    expect(e).toBeInstanceOf(ShoalError);
    return e as ShoalError;
  }
  throw new Error(`expected ${sql} to be rejected`);
}

describe('parse and validate', () => {
  it('a syntax error carries the position of the token where parsing stopped', () => {
    const e = fails('SELECT * FROM sales.customers WHERE\n  id = ');
    expect(e.code).toBe('SQL_SYNTAX');
    expect(e.position?.line).toBe(2);
    expect(e.hint).toMatch(/PostgreSQL/);
  });

  it('strict validation rejects what the parser alone accepts (SELEC x, trailing comma)', () => {
    expect(fails('SELEC name').code).toBe('SQL_SYNTAX');
    const e = fails('SELECT name,\n FROM sales.customers');
    expect(e.code).toBe('SQL_SYNTAX');
    expect(e.position).toEqual({ line: 1, column: 13 }); // just after the stray comma
  });

  it('empty input and several statements are rejected', () => {
    expect(fails('').code).toBe('SQL_EMPTY');
    expect(fails('-- only a comment').code).toBe('SQL_EMPTY');
    expect(fails('SELECT 1; SELECT 2').code).toBe('SQL_MULTIPLE_STATEMENTS');
    expect(fails('SELECT id FROM sales.customers; DELETE FROM sales.customers').code).toBe('SQL_MULTIPLE_STATEMENTS');
  });

  it.each([
    'INSERT INTO sales.customers (id) VALUES (1)',
    'UPDATE sales.customers SET name = 1',
    'DELETE FROM sales.customers',
    'CREATE TABLE x (a int)',
    'DROP TABLE sales.customers',
    'ALTER TABLE sales.customers ADD COLUMN x int',
    'TRUNCATE sales.customers',
    'GRANT SELECT ON sales.customers TO bob',
    'SET search_path = x',
    'SELECT * INTO newt FROM sales.customers',
    'SELECT * FROM sales.customers FOR UPDATE',
    'WITH d AS (DELETE FROM sales.customers RETURNING *) SELECT * FROM d',
    'SELECT * FROM (INSERT INTO sales.payments (id) VALUES (1) RETURNING *) x',
    'EXPLAIN SELECT 1',
    'VALUES (1)',
  ])('a non-SELECT statement is rejected: %s', (sql) => {
    const e = fails(sql);
    expect(['SQL_NOT_SELECT', 'SQL_SYNTAX']).toContain(e.code);
    expect(e.hint).toBeTruthy();
  });

  it('functions off the allowlist, parameters and unsafe literal kinds are rejected', () => {
    const f = fails("SELECT id,\n  pg_read_file('/etc/passwd') AS x FROM sales.payments");
    expect(f.code).toBe('SQL_FUNCTION_NOT_ALLOWED');
    expect(f.position).toEqual({ line: 2, column: 3 });
    expect(fails("SELECT * FROM read_csv('/etc/passwd')").code).not.toBe(undefined);
    expect(fails("SELECT set_config('a', 'b', false)").code).toBe('SQL_FUNCTION_NOT_ALLOWED');
    expect(fails('SELECT id FROM sales.customers WHERE id = $1').code).toBe('SQL_UNSUPPORTED');
    expect(fails("SELECT E'x\\n' AS y").code).toBe('SQL_LITERAL_NOT_ALLOWED');
    expect(fails("SELECT current_setting('search_path')").code).toBe('SQL_FUNCTION_NOT_ALLOWED');
  });
});

describe('tables, columns and roles', () => {
  it('a table answers to its qualified name, its physical name and its unique bare name', () => {
    for (const name of ['sales.customers', 'sales_pg.public.customers', 'customers', 'SALES.Customers', '"sales"."customers"']) {
      const p = planQuery({ sql: `SELECT id FROM ${name}`, role: 'analyst', vars: EU }, catalog);
      expect(p.tables).toEqual(['sales.customers']);
    }
  });

  it('an unregistered table is SQL_UNKNOWN_TABLE with the position of its name', () => {
    const e = fails('SELECT id\nFROM sales.nope');
    expect(e.code).toBe('SQL_UNKNOWN_TABLE');
    expect(e.position).toEqual({ line: 2, column: 12 });
    expect(fails('SELECT 1 FROM "sales.customers"').code).toBe('SQL_UNKNOWN_TABLE');
  });

  it('an ambiguous bare name must be qualified', () => {
    const spec = salesSpec();
    const hr = salesTables({ id: 'hr-pg', type: 'postgresql' }).filter((t) => t.tableKey === 'sales.payments')
      .map((t) => ({ ...t, tableKey: 'hr.payments', domain: 'hr', names: [] }));
    const cat = createCatalog({ ...spec, tables: [...spec.tables, ...hr] });
    expect(() => planQuery({ sql: 'SELECT id FROM payments', role: 'admin' }, cat)).toThrow(expect.objectContaining({ code: 'SQL_AMBIGUOUS_TABLE' }));
    expect(planQuery({ sql: 'SELECT id FROM hr.payments', role: 'admin' }, cat).tables).toEqual(['hr.payments']);
  });

  it('an unknown column is SQL_UNKNOWN_COLUMN with its position, qualified or not', () => {
    const e = fails('SELECT c.id, c.nope FROM sales.customers c');
    expect(e.code).toBe('SQL_UNKNOWN_COLUMN');
    expect(e.position).toEqual({ line: 1, column: 14 });
    expect(fails('SELECT nope FROM sales.customers').code).toBe('SQL_UNKNOWN_COLUMN');
    expect(fails('SELECT x.id FROM sales.customers c').code).toBe('SQL_UNKNOWN_COLUMN');
    expect(fails('SELECT id FROM sales.customers WHERE id IN (SELECT nope FROM sales.payments)').code).toBe('SQL_UNKNOWN_COLUMN');
  });

  it('a hidden column is SQL_UNKNOWN_COLUMN for a role outside visible_to, anywhere in the query, exactly as a missing one', () => {
    for (const sql of [
      'SELECT ssn FROM sales.customers',
      'SELECT c.id FROM sales.customers c WHERE c.ssn = \'1\'',
      'SELECT id FROM sales.payments p WHERE EXISTS (SELECT 1 FROM sales.customers c WHERE c.ssn = \'x\' AND c.id = p.customer_id)',
      'SELECT count(*) FROM sales.customers GROUP BY ssn',
    ]) {
      const e = fails(sql);
      expect(e.code).toBe('SQL_UNKNOWN_COLUMN');
      expect(e.position).toBeDefined();
      // the same error as for a column that does not exist (a name of the same length)
      const m = fails(sql.replace(/ssn/g, 'nop'));
      const norm = (x: ShoalError) => JSON.stringify({ code: x.code, message: x.message, hint: x.hint, position: x.position }).replace(/ssn|nop/g, '?');
      expect(norm(e)).toBe(norm(m));
    }
    expect(planQuery({ sql: 'SELECT ssn FROM sales.customers', role: 'admin' }, catalog).columns).toEqual([{ name: 'ssn', type: 'varchar' }]);
  });

  it('SELECT * expands to the visible columns only', () => {
    const names = (role: string) => planQuery({ sql: 'SELECT * FROM sales.customers', role, vars: EU }, catalog).columns.map((c) => c.name);
    expect(names('analyst')).toEqual(['id', 'name', 'email', 'region', 'signup', 'score', 'tier']);
    expect(names('admin')).toEqual(['id', 'name', 'email', 'region', 'signup', 'score', 'tier', 'ssn']);
    expect(planQuery({ sql: 'SELECT * FROM sales.customers', role: 'analyst', vars: EU }, catalog).sql).not.toMatch(/ssn/);
  });

  it('unknown roles, roles without domain access and missing session variables are rejected', () => {
    expect(fails('SELECT 1', 'ghost').code).toBe('SQL_UNKNOWN_ROLE');
    // a table the role may not read is unknown to it, exactly as a missing one
    expect(fails('SELECT id FROM sales.customers', 'outsider').code).toBe('SQL_UNKNOWN_TABLE');
    expect(fails('SELECT id FROM sales.customers', 'outsider').message).toBe(fails('SELECT id FROM sales.custom3rs', 'outsider').message.replace('custom3rs', 'customers'));
    const e = fails('SELECT id FROM sales.customers', 'analyst', {});
    expect(e.code).toBe('SQL_MISSING_VAR');
    expect(e.message).toContain('provisa.region');
    expect(e.hint).toContain('provisa.region');
    expect(fails("SELECT current_setting('provisa.team') AS t", 'admin', {}).code).toBe('SQL_MISSING_VAR');
  });

  it('session variables are readable in user queries; missing_ok gives NULL', () => {
    const p = planQuery({ sql: "SELECT current_setting('provisa.team') AS t, current_setting('provisa.x', true) AS u", role: 'admin', vars: { 'provisa.team': "it's" } }, catalog);
    expect(p.sql).toContain("'it''s' AS t");
    expect(p.sql).toMatch(/NULL AS u/);
    // a bare variable name is accepted too
    expect(planQuery({ sql: 'SELECT id FROM sales.customers', role: 'analyst', vars: { region: 'EU' } }, catalog).sql).toContain("'EU'");
  });
});

describe('row caps', () => {
  const cap = (sql: string, role = 'intern') => planQuery({ sql, role, vars: EU }, catalog, { route: 'engine' });
  it('a capped role gets a LIMIT; a smaller user LIMIT is kept, a larger one lowered', () => {
    expect(cap('SELECT id FROM sales.customers').sql).toMatch(/LIMIT 5$/);
    expect(cap('SELECT id FROM sales.customers ORDER BY id LIMIT 3').sql).toMatch(/LIMIT 3$/);
    expect(cap('SELECT id FROM sales.customers ORDER BY id LIMIT 50 OFFSET 2').sql).toMatch(/LIMIT 5 OFFSET 2$/);
    expect(cap('SELECT id FROM sales.customers UNION SELECT id FROM sales.payments').sql).toMatch(/LIMIT 5$/);
    expect(cap('SELECT id FROM sales.customers ORDER BY id FETCH FIRST 9 ROWS ONLY').sql).toMatch(/5/);
    expect(cap('SELECT id FROM sales.customers LIMIT ALL').sql).toMatch(/LIMIT 5$/);
    expect(cap('SELECT id FROM sales.customers').rowCap).toBe(5);
  });
  it('the inherited cap is the stricter; full_results roles are not capped; others get the default limit', () => {
    expect(cap('SELECT 1', 'analyst').rowCap).toBe(1000);
    expect(cap('SELECT 1', 'admin').rowCap).toBeUndefined();
    expect(cap('SELECT id FROM sales.customers LIMIT ALL', 'admin').sql).not.toMatch(/LIMIT/);
  });
  it('LIMIT and OFFSET must be integer literals', () => {
    expect(fails('SELECT id FROM sales.customers LIMIT 1 + 1').code).toBe('SQL_UNSUPPORTED');
  });
});

describe('output columns', () => {
  it('every route names result columns as PostgreSQL does', () => {
    const p = planQuery({ sql: "SELECT count(*), sum(p.amount), c.name, c.email AS e, upper(c.tier), 1 + 1, '42'::integer, coalesce(c.score, 0) FROM sales.customers c JOIN sales.payments p ON p.customer_id = c.id GROUP BY c.name, c.email, c.tier, c.score", role: 'analyst', vars: EU }, catalog, { route: 'engine' });
    expect(p.columns.map((c) => c.name)).toEqual(['count', 'sum', 'name', 'e', 'upper', '?column?', 'int4', 'coalesce']);
    expect(p.columns.map((c) => c.type)).toEqual(['bigint', 'bigint', 'varchar', 'varchar', 'text', 'integer', 'integer', 'integer']);
    expect(p.columns[3]).toEqual({ name: 'e', type: 'varchar' });
    expect(p.sql).toContain('COUNT(*) AS "count"');
  });
  it('USING merges the join column once, first', () => {
    const p = planQuery({ sql: 'SELECT * FROM sales.payments a JOIN sales.payments b USING (id)', role: 'admin' }, catalog);
    expect(p.columns.map((c) => c.name)).toEqual(['id', 'customer_id', 'amount', 'paid_at', 'customer_id', 'amount', 'paid_at']);
  });
  it('CTE and derived-table column lists name the outputs', () => {
    const p = planQuery({ sql: 'WITH t(a, b) AS (SELECT id, amount FROM sales.payments) SELECT * FROM t', role: 'admin' }, catalog);
    expect(p.columns).toEqual([{ name: 'a', type: 'integer' }, { name: 'b', type: 'integer' }]);
  });
});

describe('routes', () => {
  const route = (sql: string, cat = catalog, role = 'admin') => planQuery({ sql, role, vars: EU }, cat);
  it('a query over one PostgreSQL source runs directly, in its own names', () => {
    const pg = salesCatalog({ id: 'sales-pg', type: 'postgresql' }, 'public');
    const p = route('SELECT c.id, p.amount FROM sales.customers c JOIN sales.payments p ON p.customer_id = c.id', pg);
    expect(p.route).toEqual({ kind: 'direct', sourceId: 'sales-pg', dialect: 'postgres' });
    expect(p.sql).toContain('"public"."customers"');
  });
  it('a query over tables of two sources, or of a file source, runs on the engine under engine names', () => {
    const spec = salesSpec();
    const mixed = createCatalog({ ...spec, tables: spec.tables.map((t) => (t.tableKey === 'sales.payments' ? { ...t, source: { id: 'files', type: 'csv' } } : t)) });
    const p = route('SELECT c.id, p.amount FROM sales.customers c JOIN sales.payments p ON p.customer_id = c.id', mixed);
    expect(p.route).toEqual({ kind: 'engine' });
    expect(p.sql).toContain('"sales"."customers"');
    expect(p.routeReason).toMatch(/2 sources/);
    expect(route('SELECT id FROM sales.payments', mixed).route).toEqual({ kind: 'engine' });
    expect(route('SELECT 1').route).toEqual({ kind: 'engine' });
  });
  it('a source can be taken off the direct route (e.g. while it is down)', () => {
    const p = planQuery({ sql: 'SELECT id FROM sales.payments', role: 'admin' }, catalog, { directAllowed: () => false });
    expect(p.route).toEqual({ kind: 'engine' });
  });
  it('MySQL and SQLite run directly only inside their certified subsets', () => {
    const my = salesCatalog({ id: 'm', type: 'mariadb' });
    const lite = salesCatalog({ id: 'l', type: 'sqlite' });
    expect(route('SELECT id, amount FROM sales.payments WHERE amount > 10', my).route.kind).toBe('direct');
    expect(route('SELECT id, amount FROM sales.payments WHERE amount > 10', lite).route.kind).toBe('direct');
    expect(route('SELECT amount / 7 AS d FROM sales.payments', my).route.kind).toBe('engine');
    expect(route('SELECT amount / 7 AS d FROM sales.payments', lite).route.kind).toBe('direct');
    expect(route("SELECT id FROM sales.customers WHERE name LIKE 'a%'", lite).route.kind).toBe('engine');
    expect(route('SELECT CAST(amount AS text) AS t FROM sales.payments', lite).route.kind).toBe('engine');
    expect(route("SELECT id FROM sales.customers WHERE name = 'x'", my).route.kind).toBe('engine');
    expect(route("SELECT id FROM sales.customers WHERE name = 'x'", salesCatalog({ id: 'm', type: 'mariadb', binaryStrings: true })).route.kind).toBe('direct');
    // no boolean type there: a boolean result would come back as 1/0
    expect(route('SELECT id, amount > 10 AS big FROM sales.payments', lite).route.kind).toBe('engine');
    expect(route('SELECT id, amount > 10 AS big FROM sales.payments', my).route.kind).toBe('engine');
  });
});

describe('current time', () => {
  const clock = () => new Date('2026-03-04T05:06:07.089Z');
  it('now() and current_date are one instant from the injected clock, in UTC, on every reference', () => {
    const spec = salesSpec();
    const cat = createCatalog({ ...spec, rls: [...spec.rls, { tableKey: 'sales.payments', roleId: 'analyst', filter: 'paid_at <= current_date' }] });
    let calls = 0;
    const p = planQuery({ sql: 'SELECT now() AS t, current_date AS d, current_timestamp AS u FROM sales.payments', role: 'analyst', vars: EU }, cat, { clock: () => (calls++, clock()) });
    expect(calls).toBe(1);
    expect(p.sql).toContain("CAST('2026-03-04 05:06:07.089+00' AS TIMESTAMPTZ) AS t");
    expect(p.sql).toContain("CAST('2026-03-04' AS DATE) AS d");
    expect(p.sql).toContain("paid_at <= CAST('2026-03-04' AS DATE)");
    expect(p.columns.map((c) => c.type)).toEqual(['timestamptz', 'date', 'timestamptz']);
  });
});

describe('result columns of set-returning sources', () => {
  const cols = (sql: string) => planQuery({ sql, role: 'admin' }, catalog).columns.map((c) => c.name);
  it('are named as PostgreSQL names them', () => {
    expect(cols('SELECT * FROM generate_series(1, 3)')).toEqual(['generate_series']);
    expect(cols('SELECT * FROM generate_series(1, 3) AS g')).toEqual(['g']);
    expect(cols("SELECT * FROM (VALUES (1, 'a'), (2, 'b')) v")).toEqual(['column1', 'column2']);
    expect(cols("SELECT * FROM (VALUES (1, 'a')) AS v(x, y)")).toEqual(['x', 'y']);
    expect(cols('SELECT * FROM unnest(ARRAY[1, 2]) AS u')).toEqual(['u']);
    expect(cols('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) SELECT * FROM n')).toEqual(['i']);
  });
});
