/**
 * A governed catalog for every role: `information_schema.tables` / `.columns`, `SHOW TABLES`
 * and `DESCRIBE` answer only what the role may see — tables its domain access allows, columns
 * not hidden from it (hidden == missing) — and nothing in their answers or errors tells a role
 * of a table or column it may not read.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShoalError } from '../../../src/shoal/errors.js';
import { limitToDomains } from '../../../src/shoal/sql/domain-scope.js';
import { type GovernanceCatalog, createCatalog, planQuery } from '../../../src/shoal/sql/index.js';
import { roleCatalog } from '../../../src/shoal/sql/role-catalog.js';
import { loadTables, openDuck, rows, salesData, tpchData } from './duckdb-harness.js';
import { salesSpec } from './fixtures.js';

const spec = salesSpec();
const catalog = createCatalog(spec);
const EU = { 'provisa.region': 'EU' };
const ROLES = ['admin', 'analyst', 'intern', 'outsider'] as const;

function refusal(f: () => unknown): ShoalError {
  try {
    f();
  } catch (e) {
    if (e instanceof ShoalError) return e;
    throw e;
  }
  throw new Error('expected a ShoalError');
}

describe('the governed catalog (information_schema, SHOW TABLES, DESCRIBE)', () => {
  let duck: DuckDBConnection;
  const run = async (sql: string, role: string, cat: GovernanceCatalog = catalog) => rows(duck, planQuery({ sql, role, vars: EU }, cat, { route: 'engine' }).sql);
  beforeAll(async () => {
    duck = await openDuck();
    await loadTables(duck, 'sales', [...tpchData(), ...salesData()]);
  });
  afterAll(() => duck?.closeSync());

  it('information_schema.columns lists exactly the columns a query by that role can read (law: listed ⇔ readable)', async () => {
    for (const role of ROLES) {
      const listed = new Set((await run('SELECT table_schema, table_name, column_name FROM information_schema.columns', role)).map((r) => r.join('.')));
      const readable = new Set<string>();
      for (const t of spec.tables) {
        for (const c of t.columns) {
          try {
            planQuery({ sql: `SELECT ${c.name} FROM ${t.tableKey}`, role, vars: EU }, catalog);
            readable.add(`${t.tableKey}.${c.name}`);
          } catch (e) {
            if (!(e instanceof ShoalError)) throw e;
          }
        }
      }
      expect([...listed].sort(), role).toEqual([...readable].sort());
    }
  });

  it('a hidden column is absent for the roles it is hidden from, present with its type for the others; masks are flagged', async () => {
    const cols = async (role: string) => run("SELECT column_name, data_type, is_masked FROM information_schema.columns WHERE table_name = 'customers' ORDER BY ordinal_position", role);
    expect((await cols('admin')).map((r) => r[0])).toContain('ssn');
    const analyst = await cols('analyst');
    expect(analyst.map((r) => r[0])).not.toContain('ssn');
    expect(analyst).toContainEqual(['email', 'varchar', 'YES']);
    expect(analyst).toContainEqual(['id', 'integer', 'NO']);
    expect(await run("SELECT count(*) FROM information_schema.columns WHERE column_name = 'ssn'", 'analyst')).toEqual([['0']]);
    // the admin reads e-mails unmasked
    expect(await cols('admin')).toContainEqual(['email', 'varchar', 'NO']);
  });

  it('a role without domain access sees no table at all, through every view and command', async () => {
    expect(await run('SELECT * FROM information_schema.tables', 'outsider')).toEqual([]);
    expect(await run('SELECT * FROM information_schema.columns', 'outsider')).toEqual([]);
    expect(await run('SHOW TABLES', 'outsider')).toEqual([]);
    expect(await run('SHOW TABLES FROM sales', 'outsider')).toEqual([]);
  });

  it('SHOW TABLES lists the tables the role reads; a domain-scoped identity only its domains', async () => {
    const names = (await run('SHOW TABLES', 'analyst')).map((r) => `${r[0]}.${r[1]}`);
    expect(names).toEqual(spec.tables.map((t) => t.tableKey).sort());
    expect(await run('show tables in sales;', 'analyst')).toHaveLength(names.length);
    expect(await run('SHOW TABLES', 'analyst', limitToDomains(catalog, ['hr']))).toEqual([]);
  });

  it('DESCRIBE lists the visible columns in order with their types; DESC and SHOW COLUMNS are the same', async () => {
    const d = await run('DESCRIBE sales.customers', 'analyst');
    expect(d.map((r) => r[0])).toEqual(['id', 'name', 'email', 'region', 'signup', 'score', 'tier']);
    expect(d[0]).toEqual(['id', 'integer', 'YES', 'NO']);
    expect(await run('desc table customers', 'analyst')).toEqual(d);
    expect(await run('SHOW COLUMNS FROM "sales"."customers"', 'analyst')).toEqual(d);
    expect((await run('DESCRIBE sales.customers', 'admin')).map((r) => r[0])).toContain('ssn');
    const plan = planQuery({ sql: 'DESCRIBE sales.customers', role: 'analyst', vars: EU }, catalog);
    expect(plan.columns.map((c) => c.name)).toEqual(['column_name', 'data_type', 'is_nullable', 'is_masked']);
  });

  it('DESCRIBE of a table the role may not read fails exactly as DESCRIBE of a missing table, with no hint naming it', () => {
    const hidden = refusal(() => planQuery({ sql: 'DESCRIBE sales.customers', role: 'outsider' }, catalog));
    const missing = refusal(() => planQuery({ sql: 'DESCRIBE sales.nosuchtable', role: 'outsider' }, catalog));
    expect(hidden.code).toBe('SQL_UNKNOWN_TABLE');
    expect(missing.code).toBe('SQL_UNKNOWN_TABLE');
    expect(hidden.message.replace('customers', 'X')).toBe(missing.message.replace('nosuchtable', 'X'));
    expect(hidden.hint).toBe(missing.hint);
    // a near-miss: the readable role is told the close name, the outsider is not
    const near = refusal(() => planQuery({ sql: 'DESCRIBE sales.custommers', role: 'outsider' }, catalog));
    expect(`${near.message} ${near.hint ?? ''}`).not.toMatch(/sales\.customers/);
    expect(refusal(() => planQuery({ sql: 'DESCRIBE sales.custommers', role: 'analyst' }, catalog)).hint).toMatch(/sales\.customers/);
    // the catalog views ignore the row cap (they hold no data rows), so a capped role's DESCRIBE is complete
    expect(planQuery({ sql: 'DESCRIBE sales.customers', role: 'intern', vars: EU }, catalog).rowCap).toBeUndefined();
    expect(planQuery({ sql: 'SELECT c.id FROM sales.customers c JOIN information_schema.tables t ON true', role: 'intern', vars: EU }, catalog).rowCap).toBe(5);
  });

  it('filters, joins and aggregates over the views are ordinary governed SQL; a column name cannot be probed past the view', async () => {
    expect(await run("SELECT t.table_name FROM information_schema.tables t JOIN information_schema.columns c ON c.table_name = t.table_name WHERE c.column_name = 'ssn'", 'analyst')).toEqual([]);
    expect(await run("SELECT t.table_name FROM information_schema.tables t JOIN information_schema.columns c ON c.table_name = t.table_name WHERE c.column_name = 'ssn'", 'admin')).toEqual([['customers']]);
    // the views mix with governed tables: the join sees only the analyst's rows
    const n = await run("SELECT count(*) FROM sales.customers c JOIN information_schema.tables t ON t.table_name = 'customers'", 'analyst');
    expect(n).toEqual([[String(salesData()[0]!.rows.filter((r) => r[3] === 'EU').length)]]);
  });

  it('other information_schema relations are unknown tables', () => {
    expect(refusal(() => planQuery({ sql: 'SELECT * FROM information_schema.schemata', role: 'admin' }, catalog)).code).toBe('SQL_UNKNOWN_TABLE');
  });

  it('names with quotes and odd characters travel as data, never as SQL', async () => {
    const odd = createCatalog({
      tables: [{ tableKey: "d.it's", domain: 'd', source: { id: 's', type: 'postgresql' }, columns: [{ name: "x'); DROP TABLE y; --", type: 'text' }], engineName: ['d', 't'], sourceName: { table: 't' }, names: [] }],
      roles: [{ id: 'r' }], rls: [],
    });
    expect(await run('SELECT table_name, column_name FROM information_schema.columns', 'r', odd)).toEqual([["it's", "x'); DROP TABLE y; --"]]);
  });

  it('roleCatalog is the one answer: /data/catalog, information_schema and DESCRIBE agree', async () => {
    for (const role of ROLES) {
      const listed = (await run('SELECT table_schema, table_name, column_name, data_type, is_masked FROM information_schema.columns ORDER BY table_schema, table_name, ordinal_position', role));
      const described = roleCatalog(catalog, role).flatMap((t) => t.columns.map((c) => [t.schema, t.name, c.name, c.type, c.masked ? 'YES' : 'NO']));
      expect(listed, role).toEqual(described);
    }
  });
});
