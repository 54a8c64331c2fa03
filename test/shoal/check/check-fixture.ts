/**
 * A directory with real sources for the binding checks: a SQLite shop database (dates kept as
 * TEXT, as SQLite applications usually do), a CSV of segments, a Parquet file and an empty tik
 * store, and a config over them that binds cleanly. Tests break one thing at a time.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DuckDBInstance } from '@duckdb/node-api';
import { initStore } from '../../../src/tik/store/index.js';

export interface CheckFixture {
  readonly dir: string;
  cleanup(): void;
}

export async function makeCheckSources(): Promise<CheckFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-check-'));
  const db = new Database(join(dir, 'shop.db'));
  db.exec(`
    CREATE TABLE orders (id INTEGER PRIMARY KEY, region TEXT NOT NULL, amount NUMERIC(12,2), placed_at TEXT, shipped_at DATETIME);
    INSERT INTO orders VALUES (1, 'eu', 10.50, '2024-03-05 10:00:00', '2024-03-06 09:00:00'), (2, 'us', 20.00, '2024-04-01 12:00:00', NULL);
    CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR(40), email TEXT, region TEXT);
    INSERT INTO customers VALUES (1, 'Ada', 'ada@example.com', 'eu');`);
  db.close();
  writeFileSync(join(dir, 'segments.csv'), 'id,segment,since\n1,gold,2024-01-01\n2,silver,2023-06-30\n');
  const duck = await DuckDBInstance.create(':memory:');
  const conn = await duck.connect();
  await conn.run(`COPY (SELECT 1::INTEGER AS id, 12.5::DECIMAL(10,2) AS rate, TIMESTAMP '2024-01-01 00:00:00' AS at) TO '${join(dir, 'rates.parquet')}' (FORMAT parquet)`);
  conn.closeSync();
  duck.closeSync();
  await initStore(join(dir, 'board'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A config over the fixture's sources that binds with no error; `edit` changes its text first. */
export function goodConfig(): string {
  return `
sources:
  - {id: shop, type: sqlite, path: shop.db}
  - {id: files, type: csv, path: segments.csv}
  - {id: rates, type: parquet, path: rates.parquet}
  - {id: board, type: tik, path: board}
domains:
  - {id: sales}
tables:
  - source_id: shop
    domain_id: sales
    table: orders
    columns:
      - {name: id, data_type: integer}
      - {name: region, data_type: varchar}
      - {name: amount, data_type: "decimal(12,2)"}
      - {name: shipped_at, data_type: timestamp, mask_type: truncate, mask_precision: month, unmasked_to: [admin]}
  - source_id: shop
    domain_id: sales
    table: customers
    columns:
      - {name: id, data_type: integer}
      - {name: email, data_type: varchar, mask_type: regex, mask_pattern: "^(.{2}).*(@.*)$", mask_replace: "$1***$2", unmasked_to: [admin]}
  - source_id: files
    domain_id: sales
    table: segments
    columns:
      - {name: id, data_type: bigint}
      - {name: segment, data_type: varchar}
  - source_id: rates
    domain_id: sales
    table: rates
    columns:
      - {name: id, data_type: integer}
      - {name: rate, data_type: "decimal(10,2)"}
  - source_id: board
    domain_id: sales
    table: tickets
    columns:
      - {name: ticket, data_type: varchar}
      - {name: title, data_type: varchar}
  - source_id: __derived__
    domain_id: sales
    table: eu_orders
    view_sql: SELECT id, amount FROM sales.orders WHERE region = 'eu'
    definer_rows: true
    columns:
      - {name: id, data_type: integer}
      - {name: amount, data_type: "decimal(12,2)"}
roles:
  - {id: admin, capabilities: [admin], domain_access: ['*']}
  - {id: analyst, domain_access: [sales]}
rls_rules:
  - {table_id: orders, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}
  - {table_id: customers, role_id: analyst, filter: "region = 'eu'"}
`;
}
