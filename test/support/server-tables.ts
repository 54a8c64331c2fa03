/**
 * Generated tables (test/shoal/sql/duckdb-harness.ts) loaded into a fresh database on a real
 * PostgreSQL or MariaDB, for the tests that land those servers; each loader returns how to drop it.
 */
import mysql from 'mysql2/promise';
import pg from 'pg';
import { type Table, sqlLiteral } from '../shoal/sql/duckdb-harness.js';

const TYPES: Readonly<Record<'postgres' | 'mariadb', Readonly<Record<string, string>>>> = {
  postgres: { integer: 'integer', varchar: 'varchar(200)', date: 'date' },
  mariadb: { integer: 'INT', varchar: 'VARCHAR(200)', date: 'DATE' },
};

function tableSql(t: Table, dialect: 'postgres' | 'mariadb', prefix: string): readonly [string, string] {
  return [
    `CREATE TABLE ${prefix}${t.name} (${t.cols.map(([n, ty]) => `${n} ${TYPES[dialect][ty]}`).join(', ')})`,
    `INSERT INTO ${prefix}${t.name} VALUES ${t.rows.map((r) => `(${r.map(sqlLiteral).join(', ')})`).join(', ')}`,
  ];
}

/** Database `db` (made afresh) on the PostgreSQL at `url`, holding `tables` in `schema`. */
export async function loadPostgres(url: string, db: string, tables: readonly Table[], schema: string): Promise<() => Promise<void>> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${db}`);
  await admin.query(`CREATE DATABASE ${db}`);
  const c = new pg.Client({ connectionString: url.replace(/\/[^/]*$/, `/${db}`) });
  await c.connect();
  await c.query(`CREATE SCHEMA ${schema}`);
  for (const t of tables) for (const q of tableSql(t, 'postgres', `${schema}.`)) await c.query(q);
  await c.end();
  return async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  };
}

/** Database `db` (made afresh, case-insensitive collation as MariaDB's default) on the MariaDB at `url`, holding `tables`. */
export async function loadMariadb(url: string, db: string, tables: readonly Table[]): Promise<() => Promise<void>> {
  const conn = await mysql.createConnection({ uri: url, multipleStatements: true, timezone: 'Z' });
  await conn.query(`DROP DATABASE IF EXISTS ${db}`);
  await conn.query(`CREATE DATABASE ${db} CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
  await conn.query(`USE ${db}`);
  for (const t of tables) for (const q of tableSql(t, 'mariadb', '')) await conn.query(q);
  return async () => {
    await conn.query(`DROP DATABASE IF EXISTS ${db}`).catch(() => undefined);
    await conn.end();
  };
}
