/**
 * `/graphql` on every route: the same tables in PostgreSQL (direct route), MariaDB (direct route),
 * CSV files (the engine) and split across PostgreSQL and MariaDB (the engine, federated) answer
 * one GraphQL query — filters with bound values, ordering with NULLs, a page, a nested to-one and
 * to-many relationship, aggregates — with the same data.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../../src/shoal/instance/instance.js';
import { buildApp } from '../../../../src/shoal/server/app.js';
import { service } from '../../../support/service.js';

const postgres = service('postgres');
const mariadb = service('mariadb');
const SCHEMA = `shoal_graphql_${process.pid}`;
const DB = `shoal_graphql_${process.pid}`;

const CUSTOMERS: readonly (readonly [number, string, string | null])[] = [[1, 'Ann', 'eu'], [2, 'Bob', 'us'], [3, 'Abe', null], [4, "O'Neil", 'eu']];
const ORDERS: readonly (readonly [number, number, string])[] = [[10, 1, '100.50'], [11, 1, '20.00'], [12, 2, '5.25'], [13, 3, '7.00'], [14, 4, '20.00'], [15, 3, '1.00']];
const lit = (v: string | number | null): string => (v === null ? 'NULL' : typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`);
const customerRows = CUSTOMERS.map(([id, name, region]) => `(${id}, ${lit(name)}, ${lit(region)})`).join(', ');
const orderRows = ORDERS.map(([id, c, amount]) => `(${id}, ${c}, ${amount})`).join(', ');
const csvCell = (v: string | number | null): string => (v === null ? '' : String(v));

const columns = {
  customers: '[{name: id, data_type: integer, is_primary_key: true}, {name: name, data_type: varchar}, {name: region, data_type: varchar}]',
  orders: '[{name: id, data_type: integer, is_primary_key: true}, {name: customer_id, data_type: integer}, {name: amount, data_type: "decimal(10,2)"}]',
};

/** One query over domain `d`; the answer must not depend on where `d`'s tables live. */
const query = (d: string) => `{
  page: ${d}_orders_${d}(where: {amount: {gte: 5}, customer_id: {in: [1, 2, 4]}}, orderBy: [{amount: DESC}], first: 3) {
    nodes { id amount customer { name region } }
    pageInfo { hasNextPage }
  }
  quoted: ${d}_customers_${d}(where: {name: {eq: "O'Neil"}}) { nodes { id } }
  nulls: ${d}_customers_${d}(orderBy: [{region: DESC}, {name: ASC}]) { nodes { name region } }
  starts: ${d}_customers_${d}(where: {or: [{name: {like: "A%"}}, {region: {isNull: true}}]}) { nodes { name orders(orderBy: [{amount: ASC}], limit: 1) { id amount } } }
  totals: ${d}_orders_${d}_aggregate(where: {not: {customer_id: {eq: 2}}}) { count sum { amount } max { amount } min { id } }
}`;

const EXPECTED = {
  page: {
    nodes: [
      { id: 10, amount: '100.50', customer: { name: 'Ann', region: 'eu' } },
      { id: 11, amount: '20.00', customer: { name: 'Ann', region: 'eu' } },
      { id: 14, amount: '20.00', customer: { name: "O'Neil", region: 'eu' } },
    ],
    pageInfo: { hasNextPage: true },
  },
  quoted: { nodes: [{ id: 4 }] },
  nulls: { nodes: [{ name: 'Abe', region: null }, { name: 'Bob', region: 'us' }, { name: 'Ann', region: 'eu' }, { name: "O'Neil", region: 'eu' }] },
  starts: { nodes: [{ name: 'Ann', orders: [{ id: 11, amount: '20.00' }] }, { name: 'Abe', orders: [{ id: 15, amount: '1.00' }] }] },
  totals: { count: 5, sum: { amount: '148.50' }, max: { amount: '100.50' }, min: { id: 10 } },
};

describe.skipIf(postgres.skip || mariadb.skip)('GraphQL answers alike on every route', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-graphql-routes-'));
  let pgAdmin: pg.Client;
  let myAdmin: mysql.Connection;
  let instance: ShoalInstance;
  let app: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    pgAdmin = new pg.Client({ connectionString: postgres.url });
    await pgAdmin.connect();
    await pgAdmin.query(`CREATE SCHEMA ${SCHEMA}; CREATE TABLE ${SCHEMA}.customers (id integer primary key, name text, region text); CREATE TABLE ${SCHEMA}.orders (id integer primary key, customer_id integer, amount numeric(10,2))`);
    await pgAdmin.query(`INSERT INTO ${SCHEMA}.customers VALUES ${customerRows}; INSERT INTO ${SCHEMA}.orders VALUES ${orderRows}`);
    // the federated domain's own copies (a physical table is registered once)
    await pgAdmin.query(`CREATE TABLE ${SCHEMA}.mix_customers AS SELECT * FROM ${SCHEMA}.customers`);
    myAdmin = await mysql.createConnection({ uri: mariadb.url!, multipleStatements: true });
    await myAdmin.query(`CREATE DATABASE ${DB} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin; CREATE TABLE ${DB}.customers (id INT PRIMARY KEY, name VARCHAR(50), region VARCHAR(10)); CREATE TABLE ${DB}.orders (id INT PRIMARY KEY, customer_id INT, amount DECIMAL(10,2))`);
    await myAdmin.query(`INSERT INTO ${DB}.customers VALUES ${customerRows}; INSERT INTO ${DB}.orders VALUES ${orderRows}; CREATE TABLE ${DB}.mix_orders AS SELECT * FROM ${DB}.orders`);
    writeFileSync(join(dir, 'customers.csv'), `id,name,region\n${CUSTOMERS.map((r) => r.map(csvCell).join(',')).join('\n')}\n`);
    writeFileSync(join(dir, 'orders.csv'), `id,customer_id,amount\n${ORDERS.map((r) => r.join(',')).join('\n')}\n`);
    const pgUrl = new URL(postgres.url as string);
    const myUrl = new URL(mariadb.url as string);
    // table ids are unique across domains (relationships name tables by id): <table>_<domain>
    const table = (source: string, domain: string, name: 'customers' | 'orders', schema = '', physical: string = name) => `  - {source_id: ${source}, domain_id: ${domain},${schema ? ` schema: ${schema},` : ''} table: ${physical}, alias: ${name}_${domain}, hot: false, columns: ${columns[name]}}`;
    const rels = (domain: string) => [
      `  - {id: ${domain}_customer, source_table_id: orders_${domain}, target_table_id: customers_${domain}, source_column: customer_id, target_column: id, cardinality: many-to-one, graphql_alias: customer}`,
      `  - {id: ${domain}_orders, source_table_id: customers_${domain}, target_table_id: orders_${domain}, source_column: id, target_column: customer_id, cardinality: one-to-many, graphql_alias: orders}`,
    ];
    writeFileSync(join(dir, 'shoal.yaml'), `control_plane: {tenant_url: "sqlite:///registry.db"}
auth: {provider: none}
cache: {enabled: false}
domains: [{id: pgd}, {id: myd}, {id: csvd}, {id: mixd}]
sources:
  - {id: pg, type: postgresql, host: ${pgUrl.hostname}, port: ${pgUrl.port}, database: ${pgUrl.pathname.slice(1)}, username: ${decodeURIComponent(pgUrl.username)}}
  - {id: maria, type: mariadb, host: ${myUrl.hostname}, port: ${myUrl.port}, database: ${DB}, username: ${decodeURIComponent(myUrl.username)}}
  - {id: c-csv, type: csv, path: customers.csv}
  - {id: o-csv, type: csv, path: orders.csv}
tables:
${table('pg', 'pgd', 'customers', SCHEMA)}
${table('pg', 'pgd', 'orders', SCHEMA)}
${table('maria', 'myd', 'customers')}
${table('maria', 'myd', 'orders')}
${table('c-csv', 'csvd', 'customers')}
${table('o-csv', 'csvd', 'orders')}
${table('pg', 'mixd', 'customers', SCHEMA, 'mix_customers')}
${table('maria', 'mixd', 'orders', '', 'mix_orders')}
relationships:
${['pgd', 'myd', 'csvd', 'mixd'].flatMap(rels).join('\n')}
roles:
  - {id: admin, capabilities: [admin, query_development, full_results], domain_access: ["*"]}
`);
    instance = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'shoal.yaml') }).config, baseDir: dir, mv: { tickMs: 0 }, hot: false, resultCache: false });
    app = await buildApp({ service: instance });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await instance?.close();
    await pgAdmin?.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`).catch(() => undefined);
    await pgAdmin?.end();
    await myAdmin?.query(`DROP DATABASE IF EXISTS ${DB}`).catch(() => undefined);
    await myAdmin?.end();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [domain, where] of [['pgd', 'PostgreSQL, direct'], ['myd', 'MariaDB, direct'], ['csvd', 'CSV, engine'], ['mixd', 'PostgreSQL and MariaDB, engine']] as const) {
    it(`${where}`, async () => {
      const r = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-provisa-role': 'admin' }, body: JSON.stringify({ query: query(domain) }) });
      const body = (await r.json()) as { data?: unknown; errors?: unknown };
      expect(body.errors).toBeUndefined();
      expect(r.status).toBe(200);
      expect(body.data).toEqual(EXPECTED);
    });
  }
});
