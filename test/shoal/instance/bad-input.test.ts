/**
 * Bad input end to end, through the HTTP API of a real instance (registry, DuckDB, SQL pipeline):
 * each a precise error with a stable code and the right status, never a crash or a partial answer.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkConfigText, loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { freePort } from '../../support/services.js';
import { type HttpInstance, startHttpInstance } from './http-instance.js';

describe('bad input through a real instance', () => {
  let http: HttpInstance;
  let app: FastifyInstance;

  beforeAll(async () => {
    // A PostgreSQL source on a port nobody listens on: a source that is down.
    const deadPort = await freePort();
    http = await startHttpInstance('shoal-bad-', (dir) => {
      const db = new Database(join(dir, 'shop.db'));
      db.exec("CREATE TABLE orders (id INTEGER PRIMARY KEY, region TEXT, secret TEXT); INSERT INTO orders VALUES (1, 'eu', 's1'), (2, 'us', 's2');");
      db.exec('CREATE TABLE salaries (id INTEGER); INSERT INTO salaries VALUES (1); CREATE TABLE vault (secret TEXT);');
      db.close();
      writeFileSync(join(dir, 'seg.csv'), 'id,segment\n1,gold\n');
      writeFileSync(join(dir, 'shoal.yaml'), `control_plane: {tenant_url: "sqlite:///registry.db"}
auth: {provider: none}
domains: [{id: sales}, {id: hr}]
sources:
  - {id: shop, type: sqlite, path: shop.db}
  - {id: seg, type: csv, path: seg.csv}
  - {id: down-pg, type: postgresql, host: 127.0.0.1, port: ${deadPort}, database: nope, username: nobody}
tables:
  - source_id: shop
    domain_id: sales
    table: orders
    columns:
      - {name: id, data_type: integer, visible_to: [admin, analyst]}
      - {name: region, data_type: varchar, visible_to: [admin, analyst]}
      - {name: secret, data_type: varchar, visible_to: [admin]}
  - {source_id: seg, domain_id: sales, table: segments, columns: [{name: id, data_type: integer, visible_to: [admin, analyst]}, {name: segment, data_type: varchar, visible_to: [admin, analyst]}]}
  - {source_id: down-pg, domain_id: sales, schema: public, table: remote, columns: [{name: id, data_type: integer, visible_to: [admin]}]}
  - {source_id: shop, domain_id: hr, table: salaries, columns: [{name: id, data_type: integer}]}
  - {source_id: shop, domain_id: sales, table: vault, columns: [{name: secret, data_type: varchar, visible_to: [admin]}]}
roles:
  - {id: admin, capabilities: [admin, query_development, full_results], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development], domain_access: [sales]}
`);
    });
    app = http.app;
  }, 60_000);

  afterAll(async () => {
    await http?.close();
  });

  const post = async (sql: string, role: string | null = 'analyst') => {
    const r = await app.inject({ method: 'POST', url: '/data/sql', payload: role ? { sql, role } : { sql } });
    return { status: r.statusCode, body: r.json() as { rows?: unknown[][]; error?: { code: string; message: string; position?: { line: number; column: number } } } };
  };

  it('a syntax error is a 400 with the position', async () => {
    const r = await post('SELECT id,\n  FROM sales.orders WHERE');
    expect(r.status).toBe(400);
    expect(r.body.error?.code).toBe('SQL_SYNTAX');
    expect(r.body.error?.position?.line).toBeGreaterThanOrEqual(1);
  });

  it('an unknown table names it', async () => {
    const r = await post('SELECT * FROM sales.nope');
    expect(r.status).toBe(404);
    expect(r.body.error?.code).toBe('SQL_UNKNOWN_TABLE');
    expect(r.body.error?.message).toContain('nope');
  });

  it('an unknown column names it', async () => {
    const r = await post('SELECT colour FROM sales.orders');
    expect(r.body.error?.code).toBe('SQL_UNKNOWN_COLUMN');
    expect(r.status).toBe(400);
    expect(r.body.error?.message).toContain('colour');
  });

  it('a hidden column is refused as unknown, and * does not reveal it', async () => {
    const r = await post('SELECT secret FROM sales.orders');
    expect(r.status).toBe(400);
    expect(r.body.error?.code).toBe('SQL_UNKNOWN_COLUMN');
    const star = await post('SELECT * FROM sales.orders ORDER BY id');
    expect(star.status).toBe(200);
    expect(JSON.stringify(star.body)).not.toContain('s1');
  });

  /** Status and body with the name the query used replaced, so a hidden and a missing object can be compared (names of equal length: positions too). */
  const shape = async (sql: string, name: string, role = 'analyst') => {
    const r = await app.inject({ method: 'POST', url: '/data/sql', payload: { sql, role } });
    return { status: r.statusCode, body: JSON.parse(r.body.split(name).join('<name>')) as unknown };
  };

  it('to a role not granted it, a hidden table is indistinguishable from a missing one (code, status, message, hint)', async () => {
    // hr.salaries: a domain the analyst has no access to; sales.vault: every column hidden from the analyst
    for (const [hidden, missing] of [['hr.salaries', 'hr.wagesxyz'], ['sales.vault', 'sales.vaulz'], ['salaries', 'wagesxyz']] as const) {
      const a = await shape(`SELECT * FROM ${hidden}`, hidden);
      const b = await shape(`SELECT * FROM ${missing}`, missing);
      expect(a).toEqual(b);
      expect(a.status).toBe(404);
      expect(a.body).toMatchObject({ error: { code: 'SQL_UNKNOWN_TABLE' } });
    }
    // the admin, who is granted both, reads them
    expect((await post('SELECT id FROM hr.salaries', 'admin')).status).toBe(200);
  });

  it('to a role not granted it, a hidden column is indistinguishable from a missing one, qualified or not, and hints name only visible columns', async () => {
    for (const [hidden, missing] of [['secret', 'colour'], ['o.secret', 'o.colour']] as const) {
      const a = await shape(`SELECT ${hidden} FROM sales.orders o`, hidden.replace('o.', ''));
      const b = await shape(`SELECT ${missing} FROM sales.orders o`, missing.replace('o.', ''));
      expect(a).toEqual(b);
      expect(a.status).toBe(400);
      expect(JSON.stringify(a.body)).not.toContain('secret');
    }
    // in a subquery, a CTE, a WHERE: the same
    const hiddenWhere = await shape('WITH t AS (SELECT id FROM sales.orders WHERE secret = 1) SELECT * FROM t', 'secret');
    const missingWhere = await shape('WITH t AS (SELECT id FROM sales.orders WHERE colour = 1) SELECT * FROM t', 'colour');
    expect(hiddenWhere).toEqual(missingWhere);
    // through a derived table the engine reports it: still the same error
    const viaDerived = await shape('SELECT t.secret FROM (SELECT * FROM sales.orders) t', 'secret');
    expect(viaDerived).toEqual(await shape('SELECT t.colour FROM (SELECT * FROM sales.orders) t', 'colour'));
    expect(viaDerived.status).toBeGreaterThanOrEqual(400);
  });

  it('"did you mean" suggests only what the role may see', async () => {
    const typo = await post('SELECT regoin FROM sales.orders');
    expect(JSON.stringify(typo.body)).toContain('did you mean \\"region\\"');
    const near = await post('SELECT secrt FROM sales.orders');
    expect(JSON.stringify(near.body)).not.toContain('secret');
    const table = await post('SELECT id FROM sales.ordres');
    expect(JSON.stringify(table.body)).toContain('did you mean sales.orders?');
    const hiddenTable = await post('SELECT id FROM hr.salaris');
    expect(JSON.stringify(hiddenTable.body)).not.toContain('salaries');
    const admin = await post('SELECT id FROM hr.salaris', 'admin');
    expect(JSON.stringify(admin.body)).toContain('did you mean hr.salaries?');
  });

  it.each(['DELETE FROM sales.orders', 'DROP TABLE sales.orders', "INSERT INTO sales.orders VALUES (3, 'x', 'y')", 'SELECT 1; SELECT 2'])(
    'a non-SELECT statement is refused: %s',
    async (sql) => {
      const r = await post(sql, 'admin');
      expect(r.status).toBe(400);
      expect(r.body.error?.code).toMatch(/^SQL_/);
    },
  );

  it('an unknown role and a missing role are refused', async () => {
    const r = await post('SELECT id FROM sales.orders', 'intruder');
    expect(r.status).toBe(403);
    expect(r.body.error?.code).toBe('ROLE_UNKNOWN');
    const none = await post('SELECT id FROM sales.orders', null);
    expect(none.status).toBe(400);
    expect(none.body.error?.code).toBe('ROLE_REQUIRED');
  });

  it('a source that is down is a 503 naming it, and other sources keep working', async () => {
    const r = await post('SELECT id FROM sales.remote', 'admin');
    expect(r.status).toBe(503);
    expect(r.body.error?.code).toBe('SOURCE_UNAVAILABLE');
    expect(r.body.error?.message).toContain('down-pg');
    const ok = await post('SELECT o.id, s.segment FROM sales.orders o JOIN sales.segments s ON s.id = o.id', 'admin');
    expect(ok.status).toBe(200);
    expect(ok.body.rows).toEqual([[1, 'gold']]);
    const health = await app.inject('/health');
    expect(health.statusCode).toBe(503);
    expect(health.json()).toMatchObject({ status: 'degraded', dependencies: { registry: 'ok', 'source:down-pg': 'unavailable', 'source:shop': 'ok' } });
  });

  it('a config with a typo is a precise error with key path and line', () => {
    const r = checkConfigText('sources:\n  - {id: a, type: csv, path: a.csv}\ntables:\n  - source_id: a\n    domain_id: d\n    tabel: t\n');
    expect(r.ok).toBe(false);
    const typo = r.errors.find((e) => e.path.includes('tabel'));
    expect(typo?.line).toBe(6);
    expect(typo?.hint ?? typo?.message).toMatch(/table/);
  });
});

describe('PostgreSQL semantics on the engine route', () => {
  it('integer division truncates, as PostgreSQL does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-div-'));
    try {
      writeFileSync(join(dir, 'n.csv'), 'a,b\n7,2\n-7,2\n');
      const { config } = loadConfig({ text: `control_plane: {tenant_url: "sqlite:///r.db"}
auth: {provider: none}
domains: [{id: d}]
sources: [{id: f, type: csv, path: n.csv}]
tables: [{source_id: f, domain_id: d, table: n, columns: [{name: a, data_type: integer}, {name: b, data_type: integer}]}]
roles: [{id: admin, capabilities: [admin, query_development, full_results], domain_access: ["*"]}]
` });
      const instance = await ShoalInstance.start({ config, baseDir: dir });
      try {
        const r = await instance.query({ sql: 'SELECT a / b AS q FROM d.n ORDER BY a', role: 'admin', vars: {} }, new AbortController().signal);
        const rows: unknown[][] = [];
        for await (const b of r.batches) rows.push(...(b as unknown[][]));
        expect(rows).toEqual([[-3], [3]]);
      } finally {
        await instance.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
