/**
 * `/graphql` against `/data/sql` on one instance, side by side (ratios, never timed assertions):
 * - a page of 100 orders with each order's customer: one GraphQL request (two statements: the
 *   page, then the customers of all its rows) against the one JOIN a client would write by hand;
 * - the same page against a naive client that asks `/data/sql` for each order's customer (1 + 100
 *   requests): what the batching of nested fields saves.
 * Both sides go over HTTP on loopback to the same app and read their rows as JSON.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../src/shoal/instance/instance.js';
import { buildApp } from '../../src/shoal/server/app.js';
import { settle, sideBySide, type BenchResult } from '../tik/measure.js';

export async function benchGraphql(orders: number, runs: number): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-bench-graphql-'));
  const customers = Math.max(1, Math.floor(orders / 10));
  writeFileSync(join(dir, 'customers.csv'), `id,name,region\n${Array.from({ length: customers }, (_, i) => `${i},customer ${i},${i % 2 ? 'eu' : 'us'}`).join('\n')}\n`);
  writeFileSync(join(dir, 'orders.csv'), `id,customer_id,amount\n${Array.from({ length: orders }, (_, i) => `${i},${(i * 7) % customers},${(i % 97) + 0.5}`).join('\n')}\n`);
  writeFileSync(join(dir, 'shoal.yaml'), `auth: {provider: none}
control_plane: {tenant_url: "sqlite:///registry.db"}
domains: [{id: shop}]
sources: [{id: c, type: csv, path: customers.csv}, {id: o, type: csv, path: orders.csv}]
tables:
  - {source_id: c, domain_id: shop, table: customers, columns: [{name: id, data_type: integer, is_primary_key: true}, {name: name, data_type: varchar}, {name: region, data_type: varchar}]}
  - {source_id: o, domain_id: shop, table: orders, columns: [{name: id, data_type: integer, is_primary_key: true}, {name: customer_id, data_type: integer}, {name: amount, data_type: double}]}
relationships:
  - {id: customer, source_table_id: orders, target_table_id: customers, source_column: customer_id, target_column: id, cardinality: many-to-one}
roles: [{id: admin, capabilities: [admin, query_development, full_results], domain_access: ["*"]}]
`);
  const results: BenchResult[] = [];
  const instance = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'shoal.yaml') }).config, baseDir: dir, resultCache: false, hot: false, mv: { tickMs: 0 } });
  const app = await buildApp({ service: instance, logger: false });
  try {
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const post = async (path: string, body: unknown): Promise<unknown> => {
      const r = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-provisa-role': 'admin' }, body: JSON.stringify(body) });
      const json = (await r.json()) as { errors?: unknown };
      if (!r.ok || json.errors) throw new Error(`bench: ${path} answered ${r.status}: ${JSON.stringify(json).slice(0, 300)}`);
      return json;
    };
    const graphql = () => post('/graphql', { query: '{ shop_orders(orderBy: [{id: ASC}], first: 100) { nodes { id amount customer { name region } } } }' });
    const join_ = () => post('/data/sql', { sql: 'SELECT o.id, o.amount, c.name, c.region FROM shop.orders o LEFT JOIN shop.customers c ON c.id = o.customer_id ORDER BY o.id LIMIT 100' });
    const naive = async () => {
      const page = (await post('/data/sql', { sql: 'SELECT id, amount, customer_id FROM shop.orders ORDER BY id LIMIT 100' })) as { rows: [number, number, number][] };
      for (const [, , customer] of page.rows) await post('/data/sql', { sql: `SELECT name, region FROM shop.customers WHERE id = ${customer}` });
    };
    await graphql();
    await join_();
    await naive();
    await settle();
    results.push({ name: 'shoal: 100 orders with their customer', ...(await sideBySide(runs, join_, graphql)), note: 'POST /graphql (2 statements) vs one hand-written JOIN on POST /data/sql' });
    results.push({ name: 'shoal: 100 orders with their customer, N+1', ...(await sideBySide(runs, graphql, naive)), note: '1 + 100 POST /data/sql requests vs one POST /graphql' });
  } finally {
    await app.close();
    await instance.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
