/**
 * Shared fixtures for the DuckDB engine tests: a temp directory of generated CSV, Parquet, JSON
 * and SQLite files, and helpers to collect a streamed result.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DuckDBInstance } from '@duckdb/node-api';
import { catalogEntryFor, type CatalogEntry, type EngineSourceConfig, type EngineTableConfig } from '../../../../src/shoal/engine/catalog-entry.js';
import type { Cell, ColumnInfo, RowBatch } from '../../../../src/shoal/engine/engine.js';

export interface Collected {
  readonly columns: readonly ColumnInfo[];
  readonly rows: (readonly Cell[])[];
  readonly batches: number;
}

export async function collect(stream: AsyncIterable<RowBatch>): Promise<Collected> {
  let columns: readonly ColumnInfo[] = [];
  const rows: (readonly Cell[])[] = [];
  let batches = 0;
  for await (const b of stream) {
    columns = b.columns;
    rows.push(...b.rows);
    batches++;
  }
  return { columns, rows, batches };
}

export interface FileFixture {
  readonly dir: string;
  readonly csv: string;
  readonly parquet: string;
  readonly json: string;
  readonly sqlite: string;
  cleanup(): void;
}

export const CUSTOMERS: readonly (readonly [number, string, string])[] = [
  [1, 'enterprise', 'eu'],
  [2, 'smb', 'us'],
  [3, 'smb', 'eu'],
  [4, 'consumer', 'apac'],
];

/** Generate the files: customers.csv, typed.parquet (written by DuckDB COPY), events.json, shop.db. */
export async function makeFiles(): Promise<FileFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-engine-'));
  const csv = join(dir, 'customers.csv');
  writeFileSync(csv, 'customer_id,segment,region\n' + CUSTOMERS.map((r) => r.join(',')).join('\n') + '\n');
  const parquet = join(dir, 'typed.parquet');
  const inst = await DuckDBInstance.create(':memory:');
  const c = await inst.connect();
  await c.run(`COPY (
      SELECT * FROM (VALUES
        (1::INTEGER, 9007199254740993::BIGINT, 12345678901.23::DECIMAL(13,2), DATE '2024-02-29', TIMESTAMP '2024-02-29 13:14:15.123456', true, 'ünïcode ''quoted''', '{"k":[1,2]}'::JSON),
        (2::INTEGER, '-9223372036854775808'::BIGINT, -0.01::DECIMAL(13,2), DATE '1970-01-01', TIMESTAMP '1999-12-31 23:59:59', false, '', '[]'::JSON),
        (3::INTEGER, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
      ) AS t(id, big, amount, "day", "at", flag, label, doc)
    ) TO '${parquet}' (FORMAT parquet)`);
  c.closeSync();
  inst.closeSync();
  const json = join(dir, 'events.json');
  writeFileSync(json, [{ id: 1, kind: 'open', n: 2.5 }, { id: 2, kind: 'close', n: null }].map((o) => JSON.stringify(o)).join('\n') + '\n');
  const sqlite = join(dir, 'shop.db');
  const db = new Database(sqlite);
  db.exec(`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price DECIMAL(10,2), big INTEGER, ratio REAL,
             active BOOLEAN, added DATE, seen DATETIME, doc JSON, raw BLOB)`);
  const ins = db.prepare('INSERT INTO items VALUES (?,?,?,?,?,?,?,?,?,?)');
  ins.run(1, 'bolt', 1.25, 9007199254740993n, 0.5, 1, '2024-01-31', '2024-01-31 08:00:00', '{"a":1}', Buffer.from([0, 255]));
  ins.run(2, 'nut', 0.1, -5n, 1e-3, 0, '2023-12-01', '2023-12-01 23:59:59.5', '[1]', null);
  ins.run(3, null, null, null, null, null, null, null, null, null);
  for (let i = 4; i <= 200; i++) ins.run(i, `item-${i}`, i / 4, BigInt(i), i / 8, i % 2, '2024-03-01', '2024-03-01 00:00:00', '{}', null);
  db.close();
  return { dir, csv, parquet, json, sqlite, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function entry(source: EngineSourceConfig, table: Omit<EngineTableConfig, 'source_id'>): CatalogEntry {
  return catalogEntryFor({ ...table, source_id: source.id }, source);
}
