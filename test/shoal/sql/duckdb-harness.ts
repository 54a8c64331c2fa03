/**
 * Test harness: an in-memory DuckDB holding the sales dataset under the engine names the
 * fixtures use (`sales.<table>`), plus helpers to build governed "oracle" copies.
 */
import Database from 'better-sqlite3';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { prng } from '../../support/prng.js';
import { CUSTOMERS, PAYMENTS, TPCH } from './fixtures.js';

export type Row = readonly unknown[];
export type Table = { readonly name: string; readonly cols: readonly (readonly [string, string])[]; readonly rows: readonly Row[] };

// a small deterministic PRNG so every run sees the same data
export { prng };

export const REGIONS = ['EU', 'US', 'APAC'] as const;
// 'GOLD' next to 'gold': a case-insensitive collation would merge them (MySQL's default does)
const TIERS = ['gold', 'silver', 'bronze', 'GOLD', null] as const;

/** The governed tables: customers (40 rows across 3 regions) and payments (80 rows). */
export function salesData(seed = 7): Table[] {
  const r = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const customers: Row[] = [];
  for (let id = 1; id <= 40; id++) {
    const region = REGIONS[id % 3]!;
    const day = 1 + Math.floor(r() * 27);
    const month = 1 + Math.floor(r() * 12);
    customers.push([
      id,
      `name-${id}-${region}`,
      `user${id}.${region.toLowerCase()}@corp${id % 4}.example`,
      region,
      `2024-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
      id % 5 === 0 ? null : Math.floor(r() * 100),
      pick(TIERS),
      `ssn-${1000 + id}`,
    ]);
  }
  const payments: Row[] = [];
  for (let id = 1; id <= 80; id++) {
    payments.push([id, 1 + Math.floor(r() * 45), Math.floor(r() * 500), `2024-0${1 + (id % 9)}-1${id % 10}`]);
  }
  return [
    { name: 'customers', cols: CUSTOMERS, rows: customers },
    { name: 'payments', cols: PAYMENTS, rows: payments },
  ];
}

/** A tiny TPC-H-like dataset for the corpus (deterministic). */
export function tpchData(seed = 11): Table[] {
  const r = prng(seed);
  const int = (n: number) => Math.floor(r() * n);
  const segs = ['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'MACHINERY', 'HOUSEHOLD'];
  const date = (y0: number) => `${y0 + int(6)}-${String(1 + int(12)).padStart(2, '0')}-${String(1 + int(28)).padStart(2, '0')}`;
  const rows: Record<string, Row[]> = {
    region: ['AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST'].map((n, i) => [i, n, `c${i}`]),
    nation: Array.from({ length: 10 }, (_, i) => [i, ['FRANCE', 'GERMANY', 'BRAZIL', 'CANADA', 'CHINA', 'JAPAN', 'KENYA', 'EGYPT', 'IRAN', 'PERU'][i], i % 5, `n${i}`]),
    supplier: Array.from({ length: 8 }, (_, i) => [i + 1, `Supplier#00${i + 1}`, int(10), (int(1000000) - 100000) / 100]),
    customer: Array.from({ length: 30 }, (_, i) => [i + 1, `Customer#000${i + 1}`, int(10), `1${i % 9}-555-01${String(i).padStart(2, '0')}`, (int(1000000) - 100000) / 100, segs[i % 5], i % 7 === 0 ? 'special requests' : `c${i}`]),
    orders: [],
    lineitem: [],
  };
  for (let o = 1; o <= 60; o++) {
    rows.orders!.push([o, 1 + int(30), 'OFP'[int(3)], int(20000000) / 100, date(1992), ['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'][int(5)], 0, o % 9 === 0 ? 'special requests here' : `o${o}`]);
    for (let l = 0; l < 1 + int(4); l++) {
      rows.lineitem!.push([o, 1 + int(8), 1 + int(50), int(10000000) / 100, int(11) / 100, int(9) / 100, 'ANR'[int(3)], 'OF'[int(2)], date(1993), ['AIR', 'MAIL', 'SHIP', 'TRUCK'][int(4)]]);
    }
  }
  return Object.entries(TPCH).map(([name, cols]) => ({ name, cols, rows: rows[name]! }));
}

const DUCK_TYPES: Record<string, string> = { integer: 'INTEGER', varchar: 'VARCHAR', date: 'DATE', decimal: 'DECIMAL(15,2)' };

export function sqlLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number') return String(v);
  return `'${String(v).replace(/'/g, "''")}'`;
}

/** A SQLite file at `path` holding `tables` (decimals as REAL, SQLite's nearest type). */
export function writeSqlite(path: string, tables: readonly Table[]): void {
  const db = new Database(path);
  const types: Record<string, string> = { integer: 'INTEGER', varchar: 'TEXT', date: 'DATE', decimal: 'REAL' };
  for (const t of tables) {
    db.exec(`CREATE TABLE ${t.name} (${t.cols.map(([n, ty]) => `${n} ${types[ty]}`).join(', ')})`);
    db.exec(`INSERT INTO ${t.name} VALUES ${t.rows.map((r) => `(${r.map(sqlLiteral).join(', ')})`).join(', ')}`);
  }
  db.close();
}

export async function openDuck(): Promise<DuckDBConnection> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  // PostgreSQL semantics for `/` on integers (the engine sets this too; study corpus #35)
  await c.run('SET integer_division = true');
  return c;
}

export async function loadTables(c: DuckDBConnection, schema: string, tables: readonly Table[]): Promise<void> {
  await c.run(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  for (const t of tables) {
    await c.run(`CREATE OR REPLACE TABLE ${schema}.${t.name} (${t.cols.map(([n, ty]) => `${n} ${DUCK_TYPES[ty] ?? 'VARCHAR'}`).join(', ')})`);
    if (t.rows.length) await c.run(`INSERT INTO ${schema}.${t.name} VALUES ${t.rows.map((r) => `(${r.map(sqlLiteral).join(', ')})`).join(', ')}`);
  }
}

/** Rows as canonical JSON strings, sorted: a multiset that ignores order. */
export async function multiset(c: DuckDBConnection, sql: string): Promise<string[]> {
  const r = await c.runAndReadAll(sql);
  return r.getRowsJson().map((row) => JSON.stringify(row)).sort();
}

export async function rows(c: DuckDBConnection, sql: string): Promise<unknown[][]> {
  const r = await c.runAndReadAll(sql);
  return r.getRowsJson() as unknown[][];
}
