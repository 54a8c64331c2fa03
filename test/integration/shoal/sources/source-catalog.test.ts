/**
 * Reading a real PostgreSQL's and a real MariaDB's catalogs (what `shoal introspect` prints), and
 * `config check --connect` binding a config against them: a misspelt RLS column, a registered
 * column the source lacks, a table in the wrong schema and a truncate mask over a text column are
 * errors naming their key paths; a config that binds has none.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSourceSchema } from '../../../../src/shoal/check/read-source-schema.js';
import { bindAgainstSources } from '../../../../src/shoal/check/source-binding.js';
import { tablesFromSchema } from '../../../../src/shoal/check/tables-from-schema.js';
import { checkConfig, loadConfig } from '../../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../../src/shoal/instance/instance.js';
import type { SourceConfig } from '../../../../src/shoal/config/model.js';
import { findSourceTable } from '../../../../src/shoal/sources/source-schema.js';
import { service } from '../../../support/service.js';

const postgres = service('postgres');
const mariadb = service('mariadb');
const ENV = { SHOAL_IT_PASSWORD: 'not-needed-with-trust-auth' };

const bind = async (text: string) => {
  const loaded = checkConfig({ text }, ENV);
  expect(loaded.errors).toEqual([]);
  return bindAgainstSources(loaded.config!, { baseDir: process.cwd(), env: ENV });
};

const tableYaml = (source: string, extra: string, cols: string): string => `
  - source_id: ${source}
    domain_id: sales${extra}
    table: orders
    columns:
${cols}`;

describe.skipIf(postgres.skip)('PostgreSQL catalog', () => {
  const DB = `shoal_catalog_it_${process.pid}`;
  let admin: pg.Client;
  let source: SourceConfig;
  let sourceYaml: string;

  beforeAll(async () => {
    const url = new URL(postgres.url as string);
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${DB}`);
    await admin.query(`CREATE DATABASE ${DB}`);
    const db = new pg.Client({ connectionString: postgres.url?.replace(/\/[^/]*$/, `/${DB}`) });
    await db.connect();
    await db.query(`CREATE SCHEMA shop;
      CREATE TABLE shop.orders (id integer PRIMARY KEY, region text NOT NULL, amount numeric(12,2), big bigint, placed date,
        at timestamp, atz timestamptz, flag boolean, doc jsonb, u uuid, tags varchar(10)[], ratio double precision, note varchar(20), raw bytea, free numeric);
      CREATE TABLE public.audit (n smallint);
      CREATE VIEW shop.eu AS SELECT id, region FROM shop.orders WHERE region = 'eu';`);
    await db.end();
    source = { id: 'pg-main', type: 'postgresql', host: url.hostname, port: Number(url.port), database: DB, username: decodeURIComponent(url.username), password: '${env:SHOAL_IT_PASSWORD}' };
    sourceYaml = `sources:
  - {id: pg-main, type: postgresql, host: ${url.hostname}, port: ${url.port}, database: ${DB}, username: ${decodeURIComponent(url.username)}, password: "\${env:SHOAL_IT_PASSWORD}"}
domains: [{id: sales}]
roles: [{id: analyst, domain_access: [sales]}]
`;
  });

  afterAll(async () => {
    await admin?.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`).catch(() => undefined);
    await admin?.end();
  });

  it('lists tables and views of every schema with native types mapped to config type names', async () => {
    const schema = await readSourceSchema(source, { baseDir: process.cwd(), env: ENV });
    expect(schema.tables.map((t) => `${t.schema}.${t.table}`)).toEqual(['public.audit', 'shop.eu', 'shop.orders']);
    const orders = findSourceTable(schema, 'orders', 'shop')!;
    expect(orders.columns.map((c) => [c.name, c.nativeType, c.configType])).toEqual([
      ['id', 'integer', 'integer'],
      ['region', 'text', 'varchar'],
      ['amount', 'numeric(12,2)', 'decimal(12,2)'],
      ['big', 'bigint', 'bigint'],
      ['placed', 'date', 'date'],
      ['at', 'timestamp without time zone', 'timestamp'],
      ['atz', 'timestamp with time zone', 'timestamptz'],
      ['flag', 'boolean', 'boolean'],
      ['doc', 'jsonb', 'json'],
      ['u', 'uuid', 'uuid'],
      ['tags', 'character varying(10)[]', 'varchar[]'],
      ['ratio', 'double precision', 'double'],
      ['note', 'character varying(20)', 'varchar'],
      ['raw', 'bytea', 'blob'],
      ['free', 'numeric', 'decimal'],
    ]);
    expect(orders.columns[0]!.primaryKey).toBe(true);
    const only = await readSourceSchema(source, { baseDir: process.cwd(), env: ENV, filter: { table: 'ORDERS' } });
    expect(only.tables.map((t) => t.table)).toEqual(['orders']);
    // as config: a non-default schema is written, public is not
    expect(tablesFromSchema(source, schema, 'sales').map((t) => [t.schema, t.table])).toEqual([[undefined, 'audit'], ['shop', 'eu'], ['shop', 'orders']]);
  });

  it('config check --connect: a config that binds has no error', async () => {
    const r = await bind(`${sourceYaml}tables:${tableYaml('pg-main', '\n    schema: shop', '      - {name: id, data_type: integer}\n      - {name: region, data_type: varchar}\n      - {name: atz, data_type: timestamptz, mask_type: truncate, mask_precision: day}')}
rls_rules: [{table_id: orders, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}]
`);
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
  });

  it('config check --connect: the findings are errors naming their key paths, every one reported', async () => {
    const r = await bind(`${sourceYaml}tables:${tableYaml('pg-main', '\n    schema: shop', '      - {name: id, data_type: integer}\n      - {name: amonut, data_type: decimal}\n      - {name: note, data_type: timestamp, mask_type: truncate, mask_precision: day}')}
  - {source_id: pg-main, domain_id: sales, table: eu, columns: [{name: id, data_type: integer}]}
rls_rules: [{table_id: orders, role_id: analyst, filter: "regoin = 'eu'"}]
`);
    expect(r.errors.map((e) => `${e.path} (${e.subject}): ${e.message}`)).toEqual([
      'tables[0].columns[1] (sales.orders.amonut): column not found in source pg-main table shop.orders; columns are: id, region, amount, big, placed, at, atz, flag, doc, u, tags, ratio, note, raw, free',
      'tables[0].columns[2].mask_type (sales.orders.note): a truncate mask cannot apply: source pg-main has character varying(20) (it reaches shoal as varchar), and truncate needs a date, timestamp or number; every read of the column would fail',
      // eu is a view in schema shop; the table's schema defaults to public
      'tables[1].table (sales.eu): table public.eu not found in source pg-main; tables in public are: audit',
      'rls_rules[0].filter (table orders, role analyst): filter reads column "regoin", not found in source pg-main table shop.orders (sales.orders); columns are: id, region, amount, big, placed, at, atz, flag, doc, u, tags, ratio, note, raw, free',
    ]);
  });

  it('a wrong password variable is an error at the source entry', async () => {
    const loaded = checkConfig({ text: `${sourceYaml.replace('SHOAL_IT_PASSWORD', 'SHOAL_IT_NO_SUCH_VAR')}tables: []` }, {});
    const r = await bindAgainstSources(loaded.config!, { baseDir: process.cwd(), env: {} });
    expect(r.errors.map((e) => [e.code, e.path])).toEqual([['CONFIG_SOURCE_UNREACHABLE', 'sources[0]']]);
    expect(r.errors[0]!.message).toContain('SHOAL_IT_NO_SUCH_VAR');
  });
});

describe.skipIf(mariadb.skip)('MariaDB catalog', () => {
  const DB = `shoal_catalog_it_${process.pid}`;
  let conn: mysql.Connection;
  let source: SourceConfig;
  let sourceYaml: string;

  beforeAll(async () => {
    const url = new URL(mariadb.url as string);
    conn = await mysql.createConnection({ uri: mariadb.url as string, multipleStatements: true });
    await conn.query(`DROP DATABASE IF EXISTS ${DB}; CREATE DATABASE ${DB}; USE ${DB};
      CREATE TABLE orders (id INT PRIMARY KEY, region VARCHAR(8) NOT NULL, amount DECIMAL(12,2), big BIGINT UNSIGNED, small TINYINT,
        ok TINYINT(1), placed DATE, at DATETIME, ts TIMESTAMP NULL, doc JSON, note TEXT, ratio DOUBLE, raw BLOB, n INT UNSIGNED) ENGINE=InnoDB;`);
    source = { id: 'maria', type: 'mariadb', host: url.hostname, port: Number(url.port), database: DB, username: decodeURIComponent(url.username) };
    sourceYaml = `sources:
  - {id: maria, type: mariadb, host: ${url.hostname}, port: ${url.port}, database: ${DB}, username: ${decodeURIComponent(url.username)}}
domains: [{id: sales}]
roles: [{id: analyst, domain_access: [sales]}]
`;
  });

  afterAll(async () => {
    await conn?.query(`DROP DATABASE IF EXISTS ${DB}`).catch(() => undefined);
    await conn?.end();
  });

  it('lists the tables of the source database with native types mapped to config type names', async () => {
    const schema = await readSourceSchema(source, { baseDir: process.cwd() });
    expect(schema.tables.map((t) => `${t.schema}.${t.table}`)).toEqual([`${DB}.orders`]);
    const cols = schema.tables[0]!.columns.map((c) => [c.name, c.configType]);
    expect(cols).toEqual([
      ['id', 'integer'], ['region', 'varchar'], ['amount', 'decimal(12,2)'], ['big', 'decimal(20,0)'], ['small', 'smallint'],
      ['ok', 'boolean'], ['placed', 'date'], ['at', 'timestamp'], ['ts', 'timestamp'],
      // MariaDB's JSON is LONGTEXT with a check: it is text at the source
      ['doc', 'varchar'], ['note', 'varchar'], ['ratio', 'double'], ['raw', 'blob'], ['n', 'bigint'],
    ]);
    expect(schema.tables[0]!.columns[0]!.primaryKey).toBe(true);
    // the source's own database is its default schema: not written
    expect(tablesFromSchema(source, schema, 'sales')[0]).toMatchObject({ source_id: 'maria', domain_id: 'sales', table: 'orders' });
    expect(tablesFromSchema(source, schema, 'sales')[0]).not.toHaveProperty('schema');
  });

  it('config check --connect binds against it: good config clean, findings named', async () => {
    const good = await bind(`${sourceYaml}tables:${tableYaml('maria', '', '      - {name: id, data_type: integer}\n      - {name: at, data_type: timestamp, mask_type: truncate, mask_precision: month}')}
rls_rules: [{table_id: orders, role_id: analyst, filter: "region = 'eu'"}]
`);
    expect(good.errors).toEqual([]);
    const bad = await bind(`${sourceYaml}tables:${tableYaml('maria', '', '      - {name: id, data_type: integer}\n      - {name: amonut}\n      - {name: note, data_type: timestamp, mask_type: truncate, mask_precision: month}')}
rls_rules: [{table_id: orders, role_id: analyst, filter: "regoin = 'eu'"}]
`);
    expect(bad.errors.map((e) => [e.code, e.path])).toEqual([
      ['CONFIG_COLUMN_NOT_IN_SOURCE', 'tables[0].columns[1]'],
      ['CONFIG_MASK_TYPE', 'tables[0].columns[2].mask_type'],
      ['CONFIG_RLS_UNKNOWN_COLUMN', 'rls_rules[0].filter'],
    ]);
    expect(bad.errors[0]!.message).toBe(`column not found in source maria table ${DB}.orders; columns are: id, region, amount, big, small, ok, placed, at, ts, doc, note, ratio, raw, n`);
  });
});

describe.skipIf(postgres.skip || mariadb.skip)('a query whose RLS rule or column does not bind at PostgreSQL or MariaDB', () => {
  const DB = `shoal_bind_it_${process.pid}`;
  let admin: pg.Client;
  let conn: mysql.Connection;
  let dir: string;
  let instance: ShoalInstance;

  beforeAll(async () => {
    const pgUrl = new URL(postgres.url as string);
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${DB}`);
    await admin.query(`CREATE DATABASE ${DB}`);
    const db = new pg.Client({ connectionString: postgres.url?.replace(/\/[^/]*$/, `/${DB}`) });
    await db.connect();
    await db.query("CREATE TABLE orders (id integer, region text); INSERT INTO orders VALUES (1, 'eu'), (2, 'us')");
    await db.end();
    const myUrl = new URL(mariadb.url as string);
    conn = await mysql.createConnection({ uri: mariadb.url as string, multipleStatements: true });
    await conn.query(`DROP DATABASE IF EXISTS ${DB}; CREATE DATABASE ${DB}; USE ${DB}; CREATE TABLE orders (id INT, region VARCHAR(8)); INSERT INTO orders VALUES (1, 'eu'), (3, 'us');`);
    dir = mkdtempSync(join(tmpdir(), 'shoal-bind-it-'));
    writeFileSync(join(dir, 'shoal.yaml'), `control_plane: {tenant_url: "sqlite:///registry.db"}
auth: {provider: none}
hot_tables: {auto_threshold: 0}
sources:
  - {id: pg-main, type: postgresql, host: ${pgUrl.hostname}, port: ${pgUrl.port}, database: ${DB}, username: ${decodeURIComponent(pgUrl.username)}, password: "\${env:SHOAL_IT_PASSWORD}"}
  - {id: maria, type: mariadb, host: ${myUrl.hostname}, port: ${myUrl.port}, database: ${DB}, username: ${decodeURIComponent(myUrl.username)}}
domains: [{id: sales}]
tables:
  - {source_id: pg-main, domain_id: sales, table: orders, alias: pg_orders, columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}]}
  - {source_id: maria, domain_id: sales, table: orders, alias: my_orders, columns: [{name: id, data_type: integer}, {name: regoin, data_type: varchar}]}
roles:
  - {id: admin, capabilities: [admin, full_results], domain_access: ['*']}
  - {id: analyst, domain_access: [sales]}
rls_rules:
  - {table_id: pg_orders, role_id: analyst, filter: "regoin = 'eu'"}
`);
    const { config } = loadConfig({ path: join(dir, 'shoal.yaml') }, ENV);
    instance = await ShoalInstance.start({ config, baseDir: dir, env: ENV });
  });

  afterAll(async () => {
    await instance?.close();
    await admin?.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`).catch(() => undefined);
    await admin?.end();
    await conn?.query(`DROP DATABASE IF EXISTS ${DB}`).catch(() => undefined);
    await conn?.end();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const failure = async (sql: string, role: string) => {
    const e = await (async () => {
      const r = await instance.query({ sql, role, vars: {} }, new AbortController().signal);
      for await (const _ of r.batches) void _;
      return r.headers;
    })().then((h) => new Error(`answered: ${JSON.stringify(h)}`), (err: unknown) => err as Error & { code?: string });
    return e as Error & { code?: string };
  };

  it('the direct route to PostgreSQL names the rule and the column', async () => {
    const e = await failure('SELECT id FROM sales.pg_orders', 'analyst');
    expect(e.message).toBe('the RLS rule (table_id: pg_orders, role_id: analyst) on sales.pg_orders for role analyst reads column "regoin", which source pg-main table public.orders does not have');
  });

  it('the direct route to MariaDB names the registered column the source lacks', async () => {
    const e = await failure('SELECT * FROM sales.my_orders', 'admin');
    expect(e.code).toBe('SOURCE_QUERY_FAILED');
    expect(e.message).toBe(`registered column sales.my_orders.regoin is not in source maria table ${DB}.orders`);
  });

  it('the engine route (a join across both, landed) names them too', async () => {
    const rule = await failure('SELECT p.id FROM sales.pg_orders p JOIN sales.my_orders m ON m.id = p.id', 'analyst');
    expect(rule.message).toMatch(/^the RLS rule \(table_id: pg_orders, role_id: analyst\) on sales\.pg_orders .* column "regoin"/);
    const column = await failure('SELECT * FROM sales.pg_orders p JOIN sales.my_orders m ON m.id = p.id', 'admin');
    expect(column.message).toBe(`registered column sales.my_orders.regoin is not in source maria table ${DB}.orders`);
  });
});
