/**
 * Route parity (law S6): the same governed query returns the same multiset on the engine route
 * (DuckDB) and on the direct route against a real PostgreSQL, MariaDB and SQLite file, for the
 * study's corpus and for random queries over governed tables, for a governed and an ungoverned
 * role. A query the router keeps off the direct route is not compared (it is not run there).
 * Masked columns holding mask-resistant values (newlines, no `@`, unicode, empty) give the same
 * multiset on both routes for predicates, joins, grouping and ordering on the masked column.
 * Both routes' drivers report the result columns under the names the plan gives them (the names
 * PostgreSQL gives; see pg-column-names.test.ts). Decimal scale, timestamptz and names at the
 * instance's wire form are compared across every route in route-types.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShoalError } from '../../../../src/shoal/errors.js';
import { type GovernanceCatalog, planQuery } from '../../../../src/shoal/sql/index.js';
import { service } from '../../../support/service.js';
import { corpus } from '../../../shoal/sql/corpus-queries.js';
import { type Table, loadTables, openDuck, salesData, sqlLiteral, tpchData } from '../../../shoal/sql/duckdb-harness.js';
import { type SourceChoice, salesCatalog } from '../../../shoal/sql/fixtures.js';
import { TINY_VALUES, maskResistantArb, secretToken } from '../../../shoal/sql/mask-resistant.js';
import { queryArb } from '../../../shoal/sql/query-arbitrary.js';

const SCHEMA = 'shoal_sql_parity';
const data: Table[] = [...tpchData(), ...salesData()];
const VIEWERS: readonly { role: string; vars: Record<string, string> }[] = [{ role: 'admin', vars: {} }, { role: 'analyst', vars: { 'provisa.region': 'EU' } }, { role: 'analyst', vars: { 'provisa.region': 'US' } }];

/** A cell in a driver-independent form: numbers to 10 significant digits, dates as YYYY-MM-DD, booleans as 0/1. */
function cell(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.toISOString().replace(/T00:00:00\.000Z$/, '');
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return Number(v.toPrecision(10));
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) return Number(Number(v).toPrecision(10));
  return v;
}
const canon = (rows: readonly (readonly unknown[])[]) => rows.map((r) => JSON.stringify(r.map(cell))).sort();

/** Rows in canonical form, and the result column names the route's own driver reports. */
type Runner = (sql: string) => Promise<{ names: string[]; rows: string[] }>;
/** A source under test: run SQL, replace one table's rows, clean up. */
interface Direct { run: Runner; reload: (t: Table) => Promise<void>; close: () => Promise<void> }

const TYPES: Record<string, Record<string, string>> = {
  postgres: { integer: 'integer', varchar: 'varchar(200)', date: 'date', decimal: 'numeric(15,2)' },
  mysql: { integer: 'INT', varchar: 'VARCHAR(200) COLLATE utf8mb4_bin', date: 'DATE', decimal: 'DECIMAL(15,2)' },
  'mysql-ci': { integer: 'INT', varchar: 'VARCHAR(200)', date: 'DATE', decimal: 'DECIMAL(15,2)' },
  sqlite: { integer: 'INTEGER', varchar: 'TEXT', date: 'TEXT', decimal: 'REAL' },
};
const ddl = (t: Table, dialect: string, qualified: string) =>
  `CREATE TABLE ${qualified} (${t.cols.map(([n, ty]) => `${n} ${TYPES[dialect]![ty]}`).join(', ')})`;
const insert = (t: Table, qualified: string) => `INSERT INTO ${qualified} VALUES ${t.rows.map((r) => `(${r.map(sqlLiteral).join(', ')})`).join(', ')}`;

let duck: DuckDBConnection;
const engine: Runner = async (sql) => {
  const r = await duck.runAndReadAll(sql);
  return { names: r.columnNames(), rows: canon(r.getRowsJS() as unknown[][]) };
};

beforeAll(async () => {
  duck = await openDuck();
  await loadTables(duck, 'sales', data);
});
afterAll(() => duck?.closeSync());

interface Comparison { direct: number; engineOnly: number }

/** Plan every query for every viewer; where the route is direct, both routes must agree. */
async function compare(cat: GovernanceCatalog, direct: Runner, queries: readonly string[]): Promise<Comparison> {
  const out = { direct: 0, engineOnly: 0 };
  for (const sql of queries) {
    for (const v of VIEWERS) {
      let auto;
      try {
        auto = planQuery({ sql, role: v.role, vars: v.vars }, cat);
      } catch (e) {
        if (e instanceof ShoalError) continue; // rejected for every route alike
        throw e;
      }
      if (auto.route.kind !== 'direct') {
        out.engineOnly++;
        continue;
      }
      const viaEngine = planQuery({ sql, role: v.role, vars: v.vars }, cat, { route: 'engine' });
      const [a, b] = [await direct(auto.sql), await engine(viaEngine.sql)];
      const where = `${v.role} ${JSON.stringify(v.vars)}: ${sql}\n direct: ${auto.sql}\n engine: ${viaEngine.sql}`;
      expect(a.rows, where).toEqual(b.rows);
      // names as PostgreSQL gives them, whichever engine ran the generated SQL
      const names = auto.columns.map((c) => c.name);
      expect(a.names, where).toEqual(names);
      expect(b.names, where).toEqual(names);
      out.direct++;
    }
  }
  return out;
}

const corpusSql = corpus.map(([, sql]) => sql);
const randomSql = (seed: number, n: number) => fc.sample(queryArb, { seed, numRuns: n });

/** The customers table with every e-mail replaced by a mask-resistant value (fixed seed; short enough for VARCHAR(200)). */
function maskResistantCustomers(): Table {
  const t = data.find((x) => x.name === 'customers')!;
  return {
    ...t,
    rows: t.rows.map((r, i) => {
      const v = i % 6 === 5 ? TINY_VALUES[i % TINY_VALUES.length]! : fc.sample(maskResistantArb(i + 1).filter((x) => [...x].length <= 190), { seed: 100 + i, numRuns: 1 })[0]!;
      return [r[0], r[1], v, ...r.slice(3)];
    }),
  };
}

/** Queries whose every clause reads the masked e-mail: projection, WHERE, JOIN ON, GROUP BY, HAVING, ORDER BY, functions, subqueries, CTEs. */
const MASKED_QUERIES: readonly string[] = [
  'SELECT c.id, c.email FROM sales.customers c',
  "SELECT c.id FROM sales.customers c WHERE c.email = '***'",
  "SELECT c.id FROM sales.customers c WHERE c.email <> '***' AND c.email IS NOT NULL",
  "SELECT c.id, c.email FROM sales.customers c WHERE c.email LIKE '%@%'",
  'SELECT c.email, count(*) AS n FROM sales.customers c GROUP BY c.email',
  'SELECT c.email FROM sales.customers c GROUP BY c.email HAVING count(*) > 1',
  'SELECT c.id, c.email FROM sales.customers c ORDER BY c.email, c.id LIMIT 7',
  'SELECT a.id, b.id AS other FROM sales.customers a JOIN sales.customers b ON a.email = b.email AND a.id < b.id',
  'SELECT c.id, length(c.email) AS l, coalesce(c.email, \'none\') AS e FROM sales.customers c',
  "SELECT c.id FROM sales.customers c WHERE c.id IN (SELECT x.id FROM sales.customers x WHERE x.email = '***')",
  "WITH t AS (SELECT email FROM sales.customers) SELECT count(*) AS n FROM t WHERE email = '***'",
  'SELECT min(c.email) AS lo, max(c.email) AS hi, count(DISTINCT c.email) AS n FROM sales.customers c',
];

function suite(name: string, source: SourceChoice, sourceSchema: string | undefined, open: () => Promise<Direct>, minDirect: number, minMaskedDirect: number) {
  describe(`${name}: direct route vs engine route`, () => {
    let conn: Direct;
    const cat = salesCatalog(source, sourceSchema);
    beforeAll(async () => {
      conn = await open();
    });
    afterAll(async () => {
      await conn?.close();
    });
    it('the corpus returns the same multiset on both routes wherever it runs directly', async () => {
      const r = await compare(cat, conn.run, corpusSql);
      console.log(`${name} corpus: ${r.direct} compared directly, ${r.engineOnly} engine-only`);
      expect(r.direct).toBeGreaterThanOrEqual(minDirect);
    }, 600_000);
    it('random governed queries return the same multiset on both routes', async () => {
      const r = await compare(cat, conn.run, randomSql(42, 60));
      console.log(`${name} random: ${r.direct} compared directly, ${r.engineOnly} engine-only`);
      expect(r.direct).toBeGreaterThan(0);
    }, 600_000);
    it('masked columns holding mask-resistant values give the same multiset on both routes, and no raw value', async () => {
      const weird = maskResistantCustomers();
      const original = data.find((x) => x.name === 'customers')!;
      await conn.reload(weird);
      await loadTables(duck, 'sales', [weird]);
      try {
        const r = await compare(cat, conn.run, MASKED_QUERIES);
        console.log(`${name} masked: ${r.direct} compared directly, ${r.engineOnly} engine-only`);
        expect(r.direct).toBeGreaterThanOrEqual(minMaskedDirect);
        // and every route masks: no analyst answer carries a raw value's token
        for (const sql of MASKED_QUERIES) {
          const plan = planQuery({ sql, role: 'analyst', vars: { 'provisa.region': 'EU' } }, cat);
          const cells = (plan.route.kind === 'direct' ? await conn.run(plan.sql) : await engine(plan.sql)).rows.join('\n');
          weird.rows.forEach((_, i) => expect(cells, `${plan.route.kind}: ${sql}`).not.toContain(secretToken(i + 1)));
        }
      } finally {
        await conn.reload(original);
        await loadTables(duck, 'sales', [original]);
      }
    }, 600_000);
  });
}

const postgres = service('postgres');
describe.skipIf(postgres.skip)('PostgreSQL', () => {
  suite('postgresql', { id: 'sales-pg', type: 'postgresql' }, SCHEMA, async () => {
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; CREATE SCHEMA ${SCHEMA}`);
    for (const t of data) {
      await client.query(ddl(t, 'postgres', `${SCHEMA}.${t.name}`));
      await client.query(insert(t, `${SCHEMA}.${t.name}`));
    }
    const run: Runner = async (sql) => {
      const r = await client.query({ text: sql, rowMode: 'array', types: { getTypeParser: (oid: number) => (oid === 1082 ? (s: string) => s : pg.types.getTypeParser(oid)) } as never });
      return { names: r.fields.map((f) => f.name), rows: canon(r.rows as unknown[][]) };
    };
    const reload = async (t: Table) => {
      await client.query(`DROP TABLE ${SCHEMA}.${t.name}`);
      await client.query(ddl(t, 'postgres', `${SCHEMA}.${t.name}`));
      await client.query(insert(t, `${SCHEMA}.${t.name}`));
    };
    return { run, reload, close: async () => { await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`); await client.end(); } };
  }, 60, 12);
});

const mariadb = service('mariadb');
describe.skipIf(mariadb.skip)('MariaDB', () => {
  suite('mariadb (binary collations)', { id: 'sales-maria', type: 'mariadb', binaryStrings: true }, SCHEMA, async () => {
    const c = await mysql.createConnection({ uri: mariadb.url!, dateStrings: true, multipleStatements: false });
    await c.query(`DROP DATABASE IF EXISTS ${SCHEMA}`);
    await c.query(`CREATE DATABASE ${SCHEMA} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    for (const t of data) {
      await c.query(ddl(t, 'mysql', `${SCHEMA}.${t.name}`));
      await c.query(insert(t, `${SCHEMA}.${t.name}`));
    }
    const run: Runner = async (sql) => {
      const [rows, fields] = await c.query({ sql, rowsAsArray: true });
      return { names: (fields ?? []).map((f) => f.name), rows: canon(rows as unknown[][]) };
    };
    const reload = async (t: Table) => {
      await c.query(`DROP TABLE ${SCHEMA}.${t.name}`);
      await c.query(ddl(t, 'mysql', `${SCHEMA}.${t.name}`));
      await c.query(insert(t, `${SCHEMA}.${t.name}`));
    };
    return { run, reload, close: async () => { await c.query(`DROP DATABASE IF EXISTS ${SCHEMA}`); await c.end(); } };
  }, 20, 6);
});

describe.skipIf(mariadb.skip)('MariaDB, default collation', () => {
  // case-insensitive strings: only queries that compare, group or order no string may run directly
  suite('mariadb (utf8mb4_general_ci)', { id: 'sales-maria-ci', type: 'mariadb' }, `${SCHEMA}_ci`, async () => {
    const db = `${SCHEMA}_ci`;
    const c = await mysql.createConnection({ uri: mariadb.url!, dateStrings: true, multipleStatements: false });
    await c.query(`DROP DATABASE IF EXISTS ${db}`);
    await c.query(`CREATE DATABASE ${db} CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
    for (const t of data) {
      await c.query(ddl(t, 'mysql-ci', `${db}.${t.name}`));
      await c.query(insert(t, `${db}.${t.name}`));
    }
    const run: Runner = async (sql) => {
      const [rows, fields] = await c.query({ sql, rowsAsArray: true });
      return { names: (fields ?? []).map((f) => f.name), rows: canon(rows as unknown[][]) };
    };
    const reload = async (t: Table) => {
      await c.query(`DROP TABLE ${db}.${t.name}`);
      await c.query(ddl(t, 'mysql-ci', `${db}.${t.name}`));
      await c.query(insert(t, `${db}.${t.name}`));
    };
    return { run, reload, close: async () => { await c.query(`DROP DATABASE IF EXISTS ${db}`); await c.end(); } };
  }, 10, 1);
});

describe('SQLite file', () => {
  suite('sqlite', { id: 'sales-lite', type: 'sqlite' }, undefined, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-sql-parity-'));
    const db = new Database(join(dir, 'sales.db'));
    for (const t of data) {
      db.exec(ddl(t, 'sqlite', t.name));
      db.exec(insert(t, t.name));
    }
    const run: Runner = async (sql) => {
      const st = db.prepare(sql).raw(true);
      return { names: st.columns().map((c) => c.name), rows: canon(st.all() as unknown[][]) };
    };
    const reload = async (t: Table) => {
      db.exec(`DROP TABLE ${t.name}`);
      db.exec(ddl(t, 'sqlite', t.name));
      db.exec(insert(t, t.name));
    };
    // SQLite has no regex: a query reading the regex-masked e-mail runs on the engine (0 direct)
    return { run, reload, close: async () => { db.close(); rmSync(dir, { recursive: true, force: true }); } };
  }, 20, 0);
});
