/**
 * `GET /data/catalog` and the SQL catalog commands over HTTP on a real instance: a role sees the
 * tables its domain access allows and the columns not hidden from it, with types and masks; it
 * needs the query capability, not admin; and neither the answer, nor an error, nor a cached
 * answer of another role tells it of a table or column it may not read.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { buildApp } from '../../../src/shoal/server/app.js';

const CONFIG = `control_plane: {tenant_url: "sqlite:///registry.db"}
cache: {enabled: true, default_ttl: 600}
auth: {provider: none}
domains: [{id: sales}, {id: hr}]
sources: [{id: crm, type: csv, path: customers.csv}, {id: people, type: csv, path: staff.csv}]
tables:
  - source_id: crm
    domain_id: sales
    table: customers
    columns:
      - {name: id, data_type: integer}
      - {name: email, data_type: varchar, unmasked_to: [admin], mask_type: constant, mask_value: "***"}
      - {name: secret_score, data_type: "numeric(5,2)", visible_to: [admin]}
      - {name: region, data_type: varchar}
  - source_id: people
    domain_id: hr
    table: staff
    columns: [{name: id, data_type: integer}, {name: salary, data_type: "numeric(10,2)"}]
roles:
  - {id: admin, capabilities: [admin], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development], domain_access: [sales]}
  - {id: viewer, capabilities: [], domain_access: [sales]}
`;

describe('the governed catalog over HTTP', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-catalog-http-'));
  let instance: ShoalInstance;
  let app: FastifyInstance;

  beforeAll(async () => {
    writeFileSync(join(dir, 'customers.csv'), 'id,email,secret_score,region\n1,ann@eu.test,12.50,eu\n2,bob@us.test,3.00,us\n');
    writeFileSync(join(dir, 'staff.csv'), 'id,salary\n1,1000.00\n');
    writeFileSync(join(dir, 'shoal.yaml'), CONFIG);
    instance = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'shoal.yaml') }).config, baseDir: dir, mv: { tickMs: 0 }, hot: false });
    app = await buildApp({ service: instance });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await instance?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const catalog = (role: string) => app.inject({ method: 'GET', url: '/data/catalog', headers: { 'x-provisa-role': role } });
  const sql = (role: string, text: string) => app.inject({ method: 'POST', url: '/data/sql', headers: { 'x-provisa-role': role }, payload: { sql: text } });

  it('GET /data/catalog lists the role\'s tables and visible columns with types and masks', async () => {
    const r = await catalog('analyst');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({
      role: 'analyst',
      epoch: instance.epoch,
      tables: [{
        table: 'sales.customers', schema: 'sales', name: 'customers',
        columns: [{ name: 'id', type: 'integer', masked: false }, { name: 'email', type: 'varchar', masked: true }, { name: 'region', type: 'varchar', masked: false }],
      }],
    });
    const admin = (await catalog('admin')).json() as { tables: { table: string; columns: { name: string; masked: boolean }[] }[] };
    expect(admin.tables.map((t) => t.table)).toEqual(['hr.staff', 'sales.customers']);
    expect(admin.tables[1]!.columns.map((c) => c.name)).toEqual(['id', 'email', 'secret_score', 'region']);
    expect(admin.tables[1]!.columns.every((c) => !c.masked)).toBe(true);
    expect((await app.inject({ method: 'GET', url: '/data/catalog?role=analyst' })).json()).toEqual(r.json());
  });

  it('needs the query capability, not admin; a role without it is refused', async () => {
    const r = await catalog('viewer');
    expect(r.statusCode).toBe(403);
    expect(r.json().error.code).toBe('CAPABILITY_MISSING');
  });

  it('nothing in the catalog body, SHOW TABLES or information_schema names a hidden table or column', async () => {
    const bodies = [
      (await catalog('analyst')).body,
      (await sql('analyst', 'SHOW TABLES')).body,
      (await sql('analyst', 'SELECT * FROM information_schema.tables')).body,
      (await sql('analyst', 'SELECT * FROM information_schema.columns')).body,
      (await sql('analyst', 'DESCRIBE sales.customers')).body,
    ];
    for (const b of bodies) {
      expect(b).not.toMatch(/secret_score|staff|salary|\bhr\b/);
    }
    expect((await sql('analyst', 'SHOW TABLES')).json().rows).toEqual([['sales', 'customers', 'BASE TABLE']]);
  });

  it('DESCRIBE of a hidden table answers exactly as DESCRIBE of a missing one (status, code, message, hint)', async () => {
    const hidden = await sql('analyst', 'DESCRIBE hr.staff');
    const missing = await sql('analyst', 'DESCRIBE hr.stuff');
    expect(hidden.statusCode).toBe(404);
    expect(missing.statusCode).toBe(404);
    const h = hidden.json().error;
    const m = missing.json().error;
    expect(h.code).toBe('SQL_UNKNOWN_TABLE');
    expect({ ...h, message: h.message.replace('staff', 'X') }).toEqual({ ...m, message: m.message.replace('stuff', 'X') });
  });

  it("one role's catalog answer is never served to another (a repeat for the same role is the same answer)", async () => {
    const q = "SELECT column_name FROM information_schema.columns WHERE table_name = 'customers' ORDER BY ordinal_position";
    const first = await sql('admin', q);
    expect(first.json().rows.flat()).toContain('secret_score');
    expect((await sql('admin', q)).body).toBe(first.body);
    const other = await sql('analyst', q);
    expect(other.json().rows.flat()).toEqual(['id', 'email', 'region']);
  });

  it('decimals keep their scale on the wire, as strings', async () => {
    const r = await sql('admin', 'SELECT secret_score FROM sales.customers ORDER BY id');
    expect(r.json()).toEqual({ columns: [{ name: 'secret_score', type: 'numeric(5,2)' }], rows: [['12.50'], ['3.00']] });
  });
});
