/**
 * Masks fail closed on the MV path: an MV computed (with the service identity) from customers
 * whose e-mails resist the mask, and masked by the MV table's own regex mask, returns the same
 * masked values live (before the first refresh) and from its published snapshot as the base table
 * does, for predicates, grouping and ordering on the masked column, with no raw value for an analyst.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { salesData, sqlLiteral } from '../sql/duckdb-harness.js';
import { TINY_VALUES, maskResistantArb, secretToken } from '../sql/mask-resistant.js';

const MASK = 'unmasked_to: [admin], mask_type: regex, mask_pattern: "^(.{2}).*(@.*)$", mask_replace: "$1***$2"';
const CONFIG = `
domains: [{id: sales}]
sources:
  - {id: src, type: sqlite, path: shop.db}
tables:
  - source_id: src
    domain_id: sales
    table: customers
    columns:
      - {name: id, data_type: integer}
      - {name: email, data_type: varchar, ${MASK}}
      - {name: region, data_type: varchar}
  - source_id: __derived__
    domain_id: sales
    table: cust_mv
    materialize: true
    mv_refresh_interval: 3600
    # the MV serves the definer's rows on purpose, masked by its own column masks below
    definer_rows: true
    view_sql: 'SELECT id, email, region FROM sales.customers'
    columns:
      - {name: id, data_type: integer}
      - {name: email, data_type: varchar, ${MASK}}
      - {name: region, data_type: varchar}
roles:
  - {id: admin, capabilities: [admin, full_results], domain_access: ["*"]}
  - {id: analyst, capabilities: [full_results], domain_access: [sales]}
`;

const rowsIn = salesData().find((t) => t.name === 'customers')!.rows.map((r, i) => [
  r[0], i % 7 === 6 ? TINY_VALUES[i % TINY_VALUES.length]! : fc.sample(maskResistantArb(i + 1), { seed: 500 + i, numRuns: 1 })[0]!, r[3],
]);

async function read(instance: ShoalInstance, role: string, sql: string): Promise<{ mv: string | null; rows: string[] }> {
  const r = await instance.query({ sql, role, vars: {} }, new AbortController().signal);
  const rows: string[] = [];
  for await (const b of r.batches) for (const row of b) rows.push(JSON.stringify(row));
  return { mv: r.headers?.['x-shoal-mv'] ?? null, rows: rows.sort() };
}

/** The same question of the MV and of its base table. */
const QUERIES = [
  'SELECT id, email FROM sales.@',
  "SELECT id FROM sales.@ WHERE email = '***'",
  "SELECT email, count(*) AS n FROM sales.@ WHERE email LIKE '%@%' GROUP BY email",
  'SELECT id, email FROM sales.@ ORDER BY email, id LIMIT 9',
  'SELECT upper(email) AS u, length(email) AS l FROM sales.@',
];

describe('masked values on the MV path', () => {
  let dir: string;
  let instance: ShoalInstance;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-mv-masks-'));
    const db = new Database(join(dir, 'shop.db'));
    db.exec('CREATE TABLE customers (id INTEGER, email TEXT, region TEXT)');
    db.exec(`INSERT INTO customers VALUES ${rowsIn.map((r) => `(${r.map(sqlLiteral).join(', ')})`).join(', ')}`);
    db.close();
    writeFileSync(join(dir, 'shoal.yaml'), CONFIG);
    instance = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'shoal.yaml') }).config, baseDir: dir, mv: { tickMs: 0 } });
  }, 120_000);
  afterAll(async () => {
    await instance?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const check = async (expectMv: string) => {
    for (const q of QUERIES) {
      for (const role of ['analyst', 'admin']) {
        const base = await read(instance, role, q.replace('@', 'customers'));
        const mv = await read(instance, role, q.replace('@', 'cust_mv'));
        expect(mv.mv).toBe(expectMv);
        expect(mv.rows, `${role}: ${q}`).toEqual(base.rows);
        if (role === 'analyst') {
          const cells = mv.rows.join('\n').toLowerCase();
          rowsIn.forEach((_, i) => expect(cells, `raw e-mail of row ${i + 1}: ${q}`).not.toContain(secretToken(i + 1)));
        }
      }
    }
  };

  it('live (before a refresh) and from the published snapshot, the MV masks exactly as the base table does', async () => {
    await check('sales.cust_mv=live');
    expect(await instance.mvs!.refresh('sales.cust_mv')).toMatchObject({ outcome: 'refreshed' });
    const after = await read(instance, 'analyst', 'SELECT id FROM sales.cust_mv');
    expect(after.mv).not.toBe('sales.cust_mv=live');
    await check(after.mv!);
  }, 300_000);
});
