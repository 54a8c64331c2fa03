/**
 * Whose fault a failed query is decides its status: a broken RLS rule or mask in the config, or a
 * registered column the source lacks, is the server's (5xx), and answered 400 before the status
 * table was closed; a data error in the client's own SQL is the client's (400). Through the HTTP
 * API of a real instance (registry, DuckDB over CSV files).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpInstance, startHttpInstance } from './http-instance.js';

const CONFIG = `
control_plane: {tenant_url: "sqlite:///registry.db"}
auth: {provider: none}
domains: [{id: d}]
sources:
  - {id: nums, type: csv, path: nums.csv}
  - {id: people, type: csv, path: people.csv}
tables:
  - source_id: nums
    domain_id: d
    table: nums
    columns:
      - {name: id, data_type: integer}
      - {name: label, data_type: varchar}
      - {name: amount, data_type: integer, mask_type: constant, mask_value: lots, unmasked_to: [admin, ruled]}
      - {name: absent, data_type: integer, visible_to: [admin]}
  - source_id: people
    domain_id: d
    table: people
    columns:
      - {name: id, data_type: integer}
      - {name: name, data_type: varchar}
roles:
  - {id: admin, capabilities: [admin, query_development, full_results], domain_access: ['*']}
  - {id: masked, capabilities: [query_development], domain_access: [d]}
  - {id: ruled, capabilities: [query_development], domain_access: [d]}
  - {id: summed, capabilities: [query_development], domain_access: [d]}
rls_rules:
  - {table_id: people, role_id: ruled, filter: "id = = 1"}
  - {table_id: people, role_id: summed, filter: "sum(id) > 0"}
`;

describe('the status of a failed query says whose fault it is', () => {
  let http: HttpInstance;

  beforeAll(async () => {
    http = await startHttpInstance('shoal-fault-', (dir) => {
      writeFileSync(join(dir, 'nums.csv'), 'id,label,amount\n1,one,10\n2,two,20\n');
      writeFileSync(join(dir, 'people.csv'), 'id,name\n1,ann\n');
      writeFileSync(join(dir, 'shoal.yaml'), CONFIG);
    });
  }, 60_000);

  afterAll(async () => {
    await http?.close();
  });

  const post = async (sql: string, role: string) => {
    const r = await http.app.inject({ method: 'POST', url: '/data/sql', payload: { sql, role } });
    return { status: r.statusCode, code: (r.json() as { error?: { code: string } }).error?.code };
  };

  it('an RLS filter in the config that does not parse is a 500 SQL_BAD_POLICY', async () => {
    expect(await post('SELECT name FROM d.people', 'ruled')).toEqual({ status: 500, code: 'SQL_BAD_POLICY' });
  });

  it('a mask in the config that cannot apply to its column is a 500 SQL_BAD_MASK', async () => {
    expect(await post('SELECT amount FROM d.nums', 'masked')).toEqual({ status: 500, code: 'SQL_BAD_MASK' });
  });

  it('a registered column the source lacks, which the engine fails to bind, is a 502 ENGINE_QUERY_FAILED', async () => {
    expect(await post('SELECT * FROM d.nums', 'admin')).toEqual({ status: 502, code: 'ENGINE_QUERY_FAILED' });
  });

  it("a data error in the client's own SQL at the engine is a 400 SQL_DATA_EXCEPTION", async () => {
    expect(await post('SELECT CAST(label AS INTEGER) FROM d.nums', 'ruled')).toEqual({ status: 400, code: 'SQL_DATA_EXCEPTION' });
    expect(await post('SELECT CAST(amount * 100000000 AS SMALLINT) FROM d.nums', 'ruled')).toEqual({ status: 400, code: 'SQL_DATA_EXCEPTION' });
  });

  it("a column or a function call of the client's own that the engine fails to bind is a 400", async () => {
    // through a derived table only the engine sees the column; a hidden one is told as a missing one
    const missing = await post('SELECT t.colour FROM (SELECT id FROM d.nums) t', 'ruled');
    expect(missing).toEqual({ status: 400, code: 'SQL_UNKNOWN_COLUMN' });
    expect(await post('SELECT t.absent FROM (SELECT * FROM d.nums) t', 'ruled')).toEqual(missing);
    expect(await post("SELECT date_trunc('month', label) FROM d.nums", 'ruled')).toEqual({ status: 400, code: 'SQL_BAD_ARGUMENTS' });
  });

  it("a grouping, aggregate or operator mistake of the client's own SQL, which only the engine catches, is a 400 SQL_INVALID_QUERY", async () => {
    const grouping = await http.app.inject({ method: 'POST', url: '/data/sql', payload: { sql: 'SELECT label, count(*) FROM d.nums GROUP BY id', role: 'ruled' } });
    expect(grouping.statusCode).toBe(400);
    expect(grouping.json()).toMatchObject({ error: { code: 'SQL_INVALID_QUERY', message: expect.stringContaining('"label" must appear in the GROUP BY clause') } });
    expect(await post('SELECT id FROM d.nums WHERE sum(id) > 1', 'ruled')).toEqual({ status: 400, code: 'SQL_INVALID_QUERY' });
    expect(await post('SELECT id + label FROM d.nums', 'ruled')).toEqual({ status: 400, code: 'SQL_INVALID_QUERY' });
    expect(await post('SELECT sum(count(*)) FROM d.nums', 'ruled')).toEqual({ status: 400, code: 'SQL_INVALID_QUERY' });
    // the same mistake over a table whose rule for the role is broken is still the client's
    expect(await post('SELECT name, count(*) FROM d.people GROUP BY id', 'summed')).toEqual({ status: 400, code: 'SQL_INVALID_QUERY' });
  });

  it('a bind failure of what governance composed is never blamed on the client: a correct query under an aggregate RLS filter stays a 5xx', async () => {
    const r = await post('SELECT name FROM d.people', 'summed');
    expect(r.status).toBeGreaterThanOrEqual(500);
    expect(r.code).not.toBe('SQL_INVALID_QUERY');
  });

  it('the same queries by a role the broken rule or mask does not touch still answer', async () => {
    expect(await post('SELECT name FROM d.people', 'masked')).toEqual({ status: 200, code: undefined });
    expect(await post('SELECT id, amount FROM d.nums ORDER BY id', 'ruled')).toEqual({ status: 200, code: undefined });
  });
});
