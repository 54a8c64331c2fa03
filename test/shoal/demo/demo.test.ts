import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runDemo, type DemoResult } from '../../../src/shoal/demo/run-demo.js';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { buildApp } from '../../../src/shoal/server/app.js';

// The README's main job: sample data on embedded defaults, one governed federated query
// (SQLite ⋈ CSV ⋈ tik store) as two roles. Uses the compiled tik CLI (npm test builds first).
describe('shoal demo', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-demo-test-'));
  let result: DemoResult;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs end to end on embedded defaults', async () => {
    result = await runDemo(dir);
    expect(result.steps).toHaveLength(2);
  }, 120_000);

  it('admin sees every customer unmasked, with order totals from SQLite and open tickets from tik', () => {
    const db = new Database(join(dir, 'shop.db'), { readonly: true });
    const customers = db.prepare('SELECT name, email FROM customers ORDER BY id').all() as { name: string; email: string }[];
    const totals = db.prepare('SELECT customer_id, round(sum(amount), 2) AS t FROM orders GROUP BY customer_id ORDER BY customer_id').all() as { customer_id: number; t: number }[];
    db.close();
    const admin = result.steps[0]!;
    expect(admin.columns).toEqual(['name', 'email', 'segment', 'ordered', 'open_tickets']);
    expect(admin.rows.map((r) => [r[0], r[1]])).toEqual(customers.map((c) => [c.name, c.email]));
    // numeric(12,2) keeps its scale: decimal text, as PostgreSQL prints it
    expect(admin.rows.map((r) => r[3]).filter((v) => v !== null)).toEqual(totals.map((t) => t.t.toFixed(2)));
    // Six tickets: those with i % 3 ≠ 0 name a customer, odd ones are resolved → tickets 2 and 4 are open.
    expect(admin.rows.reduce((n, r) => n + Number(r[4]), 0)).toBe(2);
  });

  it('analyst sees only EU customers (RLS) with masked e-mail addresses', () => {
    const db = new Database(join(dir, 'shop.db'), { readonly: true });
    const eu = (db.prepare("SELECT name FROM customers WHERE region = 'eu' ORDER BY id").all() as { name: string }[]).map((c) => c.name);
    db.close();
    const analyst = result.steps[1]!;
    expect(analyst.rows.map((r) => r[0])).toEqual(eu);
    for (const r of analyst.rows) expect(r[1]).toMatch(/^..\*\*\*@example\.com$/);
  });

  it('serving the demo config requires credentials; the demo token reads as analyst in region eu only', async () => {
    const instance = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'shoal.yaml') }).config, baseDir: dir, mv: { tickMs: 0 } });
    const app = await buildApp({ service: instance });
    try {
      const sql = 'SELECT name, region FROM sales.customers ORDER BY id';
      expect((await app.inject({ method: 'POST', url: '/data/sql', headers: { 'x-provisa-role': 'admin' }, payload: { sql } })).statusCode).toBe(401);
      const r = await app.inject({ method: 'POST', url: '/data/sql', headers: { authorization: `Bearer ${result.token.secret}` }, payload: { sql } });
      expect(r.statusCode).toBe(200);
      const rows = (r.json() as { rows: [string, string][] }).rows;
      expect(rows.length).toBeGreaterThan(0);
      expect(new Set(rows.map((x) => x[1]))).toEqual(new Set(['eu']));
      const asAdmin = await app.inject({ method: 'POST', url: '/data/sql', headers: { authorization: `Bearer ${result.token.secret}`, 'x-provisa-role': 'admin' }, payload: { sql } });
      expect(asAdmin.statusCode).toBe(403);
    } finally {
      await app.close();
      await instance.close();
    }
  }, 120_000);

  it('a second run into the same directory gives the same answer', async () => {
    const again = await runDemo(dir);
    expect(again.steps.map((s) => s.rows)).toEqual(result.steps.map((s) => s.rows));
  }, 120_000);
});
