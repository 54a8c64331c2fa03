/**
 * Views and MVs cannot launder rows: a view_sql table is computed with the service identity, so
 * one that reads a table with RLS rules or masks must declare RLS for every role that reads it
 * (and is restricted on that table), or say definer_rows: true — at config load, at registry
 * import and at every registry mutation.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkConfigText, loadConfig } from '../../../src/shoal/check/load-config.js';
import { catalogOf } from '../../../src/shoal/config/model.js';
import { openRegistry } from '../../../src/shoal/registry/open-registry.js';

/** A base table with RLS (for analyst) and a mask, and a view over it; `view` adds keys to the view. */
const yaml = (view = '', rules = '', extraRoles = '') => `
domains: [{id: sales}, {id: reports}]
sources: [{id: src, type: csv, path: orders.csv}]
tables:
  - source_id: src
    domain_id: sales
    table: orders
    columns:
      - {name: region, data_type: varchar}
      - {name: email, data_type: varchar, mask_type: constant, mask_value: "***", unmasked_to: [auditor]}
  - source_id: src
    domain_id: sales
    table: plain
    columns: [{name: region, data_type: varchar}]
  - source_id: __derived__
    domain_id: reports
    table: by_region
    view_sql: 'SELECT region, count(*) AS n FROM sales.orders GROUP BY region'
    columns: [{name: region, data_type: varchar}, {name: n, data_type: bigint}]${view}
  - source_id: __derived__
    domain_id: reports
    table: plain_view
    materialize: true
    view_sql: 'SELECT region FROM sales.plain'
    columns: [{name: region, data_type: varchar}]
roles:
  - {id: admin, capabilities: [admin], domain_access: ["*"]}
  - {id: analyst, domain_access: [sales, reports]}
  - {id: auditor, domain_access: [reports]}
  - {id: junior, parent_role_id: analyst}${extraRoles}
rls_rules:
  - {table_id: orders, role_id: analyst, filter: "region = 'eu'"}${rules}
`;

describe('views and MVs cannot launder rows', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-definer-rows-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('config load: a view over a table with RLS and masks, without RLS of its own, is refused naming the base table and the roles', () => {
    const r = checkConfigText(yaml());
    expect(r.ok).toBe(false);
    const e = r.errors.find((x) => x.code === 'CONFIG_VIEW_LAUNDERS_ROWS');
    expect(e).toMatchObject({ path: 'tables[2].view_sql', line: expect.any(Number) });
    expect(e!.message).toContain('sales.orders (RLS, masks)');
    // analyst and junior: a row filter; auditor: no access to sales; admin: the email is masked for it
    expect(e!.message).toMatch(/: admin, analyst, auditor, junior$/);
    expect(e!.hint).toContain('definer_rows: true');
    expect(r.errors).toHaveLength(1); // the view over an ungoverned table is fine
  });

  it('a role that reads every governed input unrestricted needs no rule of its own', () => {
    const r = checkConfigText(yaml('', '', '\n  - {id: reader, domain_access: ["*"]}').replace('unmasked_to: [auditor]', 'unmasked_to: [auditor, admin, reader]'));
    expect(r.errors.find((x) => x.code === 'CONFIG_VIEW_LAUNDERS_ROWS')!.message).toMatch(/: analyst, auditor, junior$/);
  });

  it('is accepted with per-role RLS (inherited rules count) or with definer_rows: true', () => {
    const perRole = `
  - {table_id: by_region, role_id: admin, filter: "true"}
  - {table_id: by_region, role_id: analyst, filter: "region = 'eu'"}
  - {domain_id: reports, role_id: auditor, filter: "false"}`;
    expect(checkConfigText(yaml('', perRole)).errors).toEqual([]);
    const missingOne = perRole.replace(/\n.*auditor.*$/, '');
    expect(checkConfigText(yaml('', missingOne)).errors.map((e) => e.message)).toEqual([expect.stringMatching(/: auditor$/)]);
    const definer = checkConfigText(yaml('\n    definer_rows: true'));
    expect(definer.errors).toEqual([]);
    expect(definer.config?.tables.find((t) => t.table === 'by_region')?.definer_rows).toBe(true);
  });

  it('an MV over a governed view must govern itself too (the view\'s own rules do not bind the service identity)', () => {
    const perRole = `
  - {table_id: by_region, role_id: admin, filter: "true"}
  - {table_id: by_region, role_id: analyst, filter: "region = 'eu'"}
  - {table_id: by_region, role_id: auditor, filter: "false"}`;
    const over = yaml(`
  - source_id: __derived__
    domain_id: reports
    table: top
    materialize: true
    view_sql: 'SELECT region FROM reports.by_region WHERE n > 1'
    columns: [{name: region, data_type: varchar}]`, perRole);
    const e = checkConfigText(over).errors;
    expect(e).toEqual([expect.objectContaining({ code: 'CONFIG_VIEW_LAUNDERS_ROWS', path: 'tables[3].view_sql' })]);
    expect(e[0]!.message).toContain('reports.by_region (RLS)');
  });

  it('registry import refuses a laundering view and stores nothing; a mutation that would start laundering is refused', async () => {
    const registry = await openRegistry(`sqlite:///${join(dir, 'reg.db')}`);
    try {
      const bad = catalogOf(loadConfig({ text: yaml('\n    definer_rows: true') }).config);
      const laundering = { ...bad, tables: bad.tables.map((t) => (t.table === 'by_region' ? { ...t, definer_rows: false } : t)) };
      await expect(registry.importConfig(laundering)).rejects.toMatchObject({ code: 'REGISTRY_INVALID', message: expect.stringContaining('sales.orders') });
      expect((await registry.snapshot()).catalog.tables).toEqual([]);
      expect(await registry.epoch()).toBe(0);
      await registry.importConfig(bad);
      // dropping definer_rows, or adding a reader, re-checks the whole catalog
      const view = bad.tables.find((t) => t.table === 'by_region')!;
      await expect(registry.registerTable({ ...view, definer_rows: false })).rejects.toMatchObject({ code: 'REGISTRY_INVALID' });
      await expect(registry.registerTable({ ...view, definer_rows: false }, [
        { table_id: 'by_region', role_id: 'admin', filter: 'true' },
        { table_id: 'by_region', role_id: 'analyst', filter: "region = 'eu'" },
        { table_id: 'by_region', role_id: 'auditor', filter: 'false' },
      ])).resolves.toMatchObject({ changed: true });
      await expect(registry.registerRole({ id: 'newcomer', capabilities: [], domain_access: ['reports'] })).rejects.toMatchObject({ code: 'REGISTRY_INVALID', message: expect.stringContaining('newcomer') });
      await expect(registry.dropRlsRule({ table_id: 'by_region', role_id: 'auditor' })).rejects.toMatchObject({ code: 'REGISTRY_INVALID' });
    } finally {
      await registry.close();
    }
  });
});
