import { describe, expect, it } from 'vitest';
import { makeCatalog, makeTable } from '../../../src/shoal/config/model.js';
import { catalogFromConfig, planQuery } from '../../../src/shoal/sql/index.js';

/** The example of federation-fleet.md §7 (without its MV), as a model value. */
const model = makeCatalog({
  domains: [{ id: 'sales' }],
  sources: [
    { id: 'sales-pg', type: 'postgresql', host: 'h', port: 5432, database: 'sales', username: 'ro', password: '${env:PW}' },
    { id: 'segments-csv', type: 'csv', path: '/data/ref/customer_segments.csv' },
    { id: 'shop', type: 'mariadb', database: 'shopdb' },
  ],
  tables: [
    makeTable({
      source_id: 'sales-pg', domain_id: 'sales', schema: 'public', table: 'orders',
      columns: [
        { name: 'id', data_type: 'integer', visible_to: ['admin', 'analyst'] },
        { name: 'customer_id', data_type: 'integer', visible_to: ['admin', 'analyst'] },
        { name: 'region', data_type: 'varchar', visible_to: ['admin', 'analyst'] },
        { name: 'amount', data_type: 'decimal', visible_to: ['admin', 'analyst'], unmasked_to: ['admin'], mask_type: 'constant', mask_value: '0' },
        { name: 'email', data_type: 'varchar', visible_to: ['admin', 'analyst'], unmasked_to: ['admin'], mask_type: 'regex', mask_pattern: '^(.{2}).*(@.*)$', mask_replace: '$1***$2' },
        { name: 'created', data_type: 'date', unmasked_to: ['admin'], mask_type: 'truncate', mask_precision: 'month' },
        { name: 'cost', data_type: 'decimal', visible_to: ['admin'] },
      ],
    }),
    makeTable({
      source_id: 'segments-csv', domain_id: 'sales', table: 'customer_segments',
      columns: [{ name: 'customer_id', data_type: 'integer' }, { name: 'segment', data_type: 'varchar' }],
    }),
    makeTable({ source_id: 'shop', domain_id: 'sales', table: 'items', alias: 'shop_items', columns: [{ name: 'sku', data_type: 'varchar' }] }),
  ],
  roles: [
    { id: 'admin', capabilities: ['admin', 'query_development', 'full_results'], domain_access: ['*'] },
    { id: 'analyst', capabilities: ['query_development'], domain_access: ['sales'], max_rows: 100 },
    { id: 'junior', capabilities: [], domain_access: [], parent_role_id: 'analyst', max_rows: 10 },
    { id: 'nobody', capabilities: ['query_development'], domain_access: [] },
  ],
  rls_rules: [
    { table_id: 'orders', role_id: 'analyst', filter: "region = current_setting('provisa.user_region')" },
    { domain_id: 'sales', role_id: 'junior', filter: 'customer_id < 100' },
  ],
});

const catalog = catalogFromConfig(model, { defaultRowLimit: 10_000 });
const vars = { 'provisa.user_region': 'EU' };

describe('catalogFromConfig', () => {
  it('tables answer to <domain>.<alias ?? table> and to the physical three-part name', () => {
    expect(catalog.resolveTable(['sales', 'orders']).map((t) => t.tableKey)).toEqual(['sales.orders']);
    expect(catalog.resolveTable(['sales_pg', 'public', 'orders']).map((t) => t.tableKey)).toEqual(['sales.orders']);
    expect(catalog.resolveTable(['segments_csv', 'default', 'customer_segments']).map((t) => t.tableKey)).toEqual(['sales.customer_segments']);
    expect(catalog.resolveTable(['sales', 'shop_items']).map((t) => t.tableKey)).toEqual(['sales.shop_items']);
    expect(catalog.resolveTable(['sales', 'items'])).toEqual([]);
  });

  it('engine names default to the physical parts; direct names use the source schema', () => {
    const [orders] = catalog.resolveTable(['sales', 'orders']);
    expect(orders!.engineName).toEqual(['sales_pg', 'public', 'orders']);
    expect(orders!.sourceName).toEqual({ schema: 'public', table: 'orders' });
    expect(catalog.resolveTable(['sales', 'shop_items'])[0]!.sourceName).toEqual({ schema: 'shopdb', table: 'items' });
    const custom = catalogFromConfig(model, { engineName: (t) => [`v_${t.table}`] });
    expect(custom.resolveTable(['sales', 'orders'])[0]!.engineName).toEqual(['v_orders']);
  });

  it('visibility, masks, RLS and caps follow the config, with inheritance', () => {
    expect(catalog.visibleColumns('analyst', 'sales.orders')).toEqual(['id', 'customer_id', 'region', 'amount', 'email', 'created']);
    expect(catalog.visibleColumns('admin', 'sales.orders')).toContain('cost');
    expect(catalog.visibleColumns('junior', 'sales.orders')).not.toContain('cost');
    expect(catalog.mask('analyst', 'sales.orders', 'email')).toEqual({ kind: 'regex', pattern: '^(.{2}).*(@.*)$', replace: '$1***$2' });
    expect(catalog.mask('admin', 'sales.orders', 'email')).toBeUndefined();
    expect(catalog.mask('junior', 'sales.orders', 'amount')).toEqual({ kind: 'constant', value: '0' });
    expect(catalog.rowFilters('analyst', 'sales.orders')).toEqual(["region = current_setting('provisa.user_region')"]);
    // junior: its own domain rule, and its parent's table rule
    expect([...catalog.rowFilters('junior', 'sales.orders')].sort()).toEqual(['customer_id < 100', "region = current_setting('provisa.user_region')"]);
    expect(catalog.role('junior')?.rowCap).toBe(10);
    expect(catalog.role('analyst')?.rowCap).toBe(100);
    expect(catalog.role('admin')?.rowCap).toBeUndefined();
    expect(catalog.role('nobody')?.rowCap).toBe(10_000);
    expect(catalog.canAccess('junior', 'sales.orders')).toBe(true);
    expect(catalog.canAccess('nobody', 'sales.orders')).toBe(false);
  });

  it('plans a governed query over the config', () => {
    const p = planQuery({ sql: 'SELECT o.email, o.amount, o.created, s.segment FROM sales.orders o JOIN sales.customer_segments s ON s.customer_id = o.customer_id', role: 'analyst', vars }, catalog);
    expect(p.route).toEqual({ kind: 'engine' });
    expect(p.sql).toContain('"sales_pg"."public"."orders"');
    expect(p.sql).toContain('"segments_csv"."default"."customer_segments"');
    expect(p.sql).toContain("'\\1***\\2'");
    expect(p.sql).toContain("region = 'EU'");
    expect(p.sql).toMatch(/LIMIT 100$/);
    expect(() => planQuery({ sql: 'SELECT cost FROM sales.orders', role: 'analyst', vars }, catalog)).toThrow(expect.objectContaining({ code: 'SQL_UNKNOWN_COLUMN' }));
    const direct = planQuery({ sql: 'SELECT id FROM sales_pg.public.orders', role: 'admin' }, catalog);
    expect(direct.route).toEqual({ kind: 'direct', sourceId: 'sales-pg', dialect: 'postgres' });
    expect(direct.sql).toContain('"public"."orders"');
  });
});

describe('default row limit', () => {
  it('roles without full_results or max_rows get 10000 rows unless configured', () => {
    expect(catalogFromConfig(model).role('nobody')?.rowCap).toBe(10_000);
    expect(catalogFromConfig(model, { defaultRowLimit: 50 }).role('nobody')?.rowCap).toBe(50);
    expect(catalogFromConfig(model).role('admin')?.rowCap).toBeUndefined();
  });
});
