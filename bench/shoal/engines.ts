/**
 * DuckDB engine vs Trino engine on the same federated queries (a Parquet file source joined with
 * a landed SQLite source), at two data sizes. Reported as the ratio Trino / DuckDB of median wall
 * times measured in one run, never as a timed assertion.
 *
 *   npm run build && node dist/bench/shoal/engines.js --trino-url http://127.0.0.1:8080 [--sizes 10000,1000000] [--runs 3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DuckDBInstance } from '@duckdb/node-api';
import { catalogEntryFor, type CatalogEntry } from '../../src/shoal/engine/catalog-entry.js';
import { DuckDbEngine } from '../../src/shoal/engine/duckdb/duckdb-engine.js';
import type { Engine } from '../../src/shoal/engine/engine.js';
import { TrinoEngine } from '../../src/shoal/engine/trino/trino-engine.js';
import { median } from '../tik/measure.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const url = arg('--trino-url', process.env.TRINO_URL ?? '');
if (url === '') {
  process.stderr.write('give --trino-url (or TRINO_URL): a running Trino coordinator with catalog.management=dynamic\n');
  process.exit(2);
}
const sizes = arg('--sizes', '10000,1000000').split(',').map(Number);
const runs = Number(arg('--runs', '3'));

const QUERIES: readonly (readonly [string, string])[] = [
  ['aggregate a file source', 'SELECT region, count(*) AS n, sum(amount) AS total FROM b_orders."default".orders GROUP BY region'],
  ['join file × landed', 'SELECT c.segment, count(*) AS n, sum(o.amount) AS total FROM b_orders."default".orders o JOIN b_cust.main.customers c ON c.id = o.customer_id GROUP BY c.segment'],
  ['selective filter', "SELECT count(*) FROM b_orders.\"default\".orders WHERE amount > 990 AND region = 'EU'"],
];

async function data(dir: string, n: number): Promise<CatalogEntry[]> {
  const parquet = join(dir, 'orders.parquet');
  const inst = await DuckDBInstance.create(':memory:');
  const c = await inst.connect();
  await c.run(`COPY (SELECT i AS id, (i * 7919) % 1000 AS customer_id, ['EU','US','APAC'][1 + i % 3] AS region, (i * 31) % 1000 AS amount FROM range(${n}) t(i)) TO '${parquet}' (FORMAT parquet)`);
  c.closeSync();
  inst.closeSync();
  const sqlite = join(dir, 'cust.db');
  const db = new Database(sqlite);
  db.exec('CREATE TABLE customers (id INTEGER PRIMARY KEY, segment TEXT)');
  const ins = db.prepare('INSERT INTO customers VALUES (?, ?)');
  db.transaction(() => { for (let i = 0; i < 1000; i++) ins.run(i, `seg${i % 7}`); })();
  db.close();
  return [
    catalogEntryFor({ source_id: 'b-orders', domain_id: 'bench', table: 'orders' }, { id: 'b-orders', type: 'parquet', path: parquet }),
    catalogEntryFor({ source_id: 'b-cust', domain_id: 'bench2', schema: 'main', table: 'customers' }, { id: 'b-cust', type: 'sqlite', path: sqlite }),
  ];
}

async function drain(engine: Engine, sql: string): Promise<void> {
  for await (const b of engine.execute(sql)) void b;
}

const lines: string[] = [];
for (const n of sizes) {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-bench-engines-'));
  try {
    const entries = await data(dir, n);
    const duck = await DuckDbEngine.create();
    const trino = await TrinoEngine.create({ url, scratchDir: join(dir, 'scratch') });
    await duck.reconcile(entries);
    await trino.reconcile(entries);
    for (const [name, sql] of QUERIES) {
      const d = await median(runs, () => drain(duck, sql));
      const t = await median(runs, () => drain(trino, sql));
      lines.push(`${String(n).padStart(8)} rows  ${name.padEnd(26)} duckdb ${d.toFixed(0).padStart(6)} ms  trino ${t.toFixed(0).padStart(6)} ms  trino/duckdb ${(t / d).toFixed(1)}×`);
    }
    await duck.close();
    await trino.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
process.stdout.write(`${lines.join('\n')}\n`);
