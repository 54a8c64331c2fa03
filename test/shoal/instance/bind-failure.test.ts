/**
 * A config that passed `config check` but does not bind at its sources used to fail every query
 * with "the engine could not run the query (Binder Error)" or "source rejected the statement":
 * naming neither the rule nor the column. Through a real instance (SQLite and CSV sources, DuckDB),
 * the error now names the RLS rule (by table and role), the mask or the registered column at fault —
 * and still never echoes the engine's text.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalError } from '../../../src/shoal/errors.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { makeCheckSources, type CheckFixture } from '../check/check-fixture.js';

const CONFIG = `
control_plane: {tenant_url: "sqlite:///registry.db"}
auth: {provider: none}
sources:
  - {id: shop, type: sqlite, path: shop.db}
  - {id: files, type: csv, path: segments.csv}
domains: [{id: sales}]
tables:
  - source_id: shop
    domain_id: sales
    table: orders
    columns:
      - {name: id, data_type: integer}
      - {name: region, data_type: varchar}
      - {name: placed_at, data_type: timestamp, mask_type: truncate, mask_precision: month, unmasked_to: [admin]}
  - source_id: shop
    domain_id: sales
    table: customers
    columns:
      - {name: id, data_type: integer}
      - {name: emial, data_type: varchar}
  - source_id: files
    domain_id: sales
    table: segments
    columns:
      - {name: id, data_type: bigint}
      - {name: segment, data_type: varchar}
roles:
  - {id: admin, capabilities: [admin, full_results], domain_access: ['*']}
  - {id: analyst, domain_access: [sales]}
  - {id: viewer, domain_access: [sales]}
rls_rules:
  - {table_id: segments, role_id: analyst, filter: "segmnet = 'gold'"}
  - {table_id: orders, role_id: analyst, filter: "regoin = 'eu'"}
`;

let fx: CheckFixture;
let instance: ShoalInstance;

beforeAll(async () => {
  fx = await makeCheckSources();
  writeFileSync(join(fx.dir, 'shoal.yaml'), CONFIG);
  const { config } = loadConfig({ path: join(fx.dir, 'shoal.yaml') });
  instance = await ShoalInstance.start({ config, baseDir: fx.dir });
}, 60_000);

afterAll(async () => {
  await instance?.close();
  fx?.cleanup();
});

async function failure(sql: string, role: string): Promise<ShoalError> {
  const e = await (async () => {
    const r = await instance.query({ sql, role, vars: {} }, new AbortController().signal);
    for await (const _ of r.batches) void _;
  })().then(() => undefined, (err: unknown) => err);
  expect(e).toBeInstanceOf(ShoalError);
  return e as ShoalError;
}

describe('a query that does not bind names what is wrong in the config', () => {
  it('an RLS filter on a missing column (SQLite source) names the rule, the table, the role and the column', async () => {
    for (const sql of ['SELECT id FROM sales.orders', 'SELECT o.id FROM sales.orders o JOIN sales.customers c ON c.id = o.id']) {
      const e = await failure(sql, 'analyst');
      expect(e.message).toBe('the RLS rule (table_id: orders, role_id: analyst) on sales.orders for role analyst reads column "regoin", which source shop table orders does not have');
      expect(e.hint).toContain('config check --connect');
    }
  });

  it('an RLS filter on a missing column (CSV source, bound by DuckDB) names the rule and the column', async () => {
    const e = await failure('SELECT segment FROM sales.segments', 'analyst');
    expect(e.message).toBe('the RLS rule (table_id: segments, role_id: analyst) on sales.segments for role analyst reads column "segmnet", which source files table segments does not have');
  });

  it('a registered column the source lacks names the column', async () => {
    const e = await failure('SELECT * FROM sales.customers', 'admin');
    expect(e.message).toBe('registered column sales.customers.emial is not in source shop table customers');
  });

  it('a truncate mask over a SQLite TEXT timestamp names the mask and the column', async () => {
    const e = await failure('SELECT id, placed_at FROM sales.orders', 'viewer');
    expect(e.message).toMatch(/^the truncate mask on sales\.orders\.placed_at \(declared timestamp\) cannot apply/);
    expect(e.message).not.toMatch(/Binder|date_trunc\(/);
  });

  it('a name the query itself uses is the client\'s mistake (400): no policy or hidden column is ever revealed by it', async () => {
    // regoin is both the broken rule's column and a name the user wrote (through a derived table)
    const e = await failure('SELECT t.regoin FROM (SELECT * FROM sales.orders) t', 'analyst');
    expect(e.code).toBe('SQL_UNKNOWN_COLUMN');
    expect(e.message).not.toMatch(/RLS|rule|regoin/);
    // the user's own date_trunc on a text column is not blamed on a mask
    const f = await failure("SELECT date_trunc('month', region) FROM sales.orders", 'viewer');
    expect(f.code).toBe('SQL_BAD_ARGUMENTS');
    expect(f.message).not.toMatch(/mask/);
  });

  it('a registered column the source lacks is named even when the query names it', async () => {
    const e = await failure('SELECT emial FROM sales.customers', 'admin');
    expect([e.code, e.message]).toEqual(['SOURCE_QUERY_FAILED', 'registered column sales.customers.emial is not in source shop table customers']);
  });

  it('queries that bind still answer', async () => {
    const r = await instance.query({ sql: 'SELECT id FROM sales.orders ORDER BY id', role: 'viewer', vars: {} }, new AbortController().signal);
    const rows: unknown[] = [];
    for await (const b of r.batches) rows.push(...b);
    expect(rows.length).toBe(2);
  });
});
