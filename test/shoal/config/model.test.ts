import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  catalogName,
  findTable,
  makeCatalog,
  makeRlsRule,
  makeTable,
  physicalName,
  qualifiedName,
  rlsFiltersFor,
  tableId,
} from '../../../src/shoal/config/model.js';

describe('the catalog model', () => {
  it('makeTable applies upstream defaults and freezes', () => {
    const t = makeTable({ source_id: 'sales-pg', domain_id: 'sales', table: 'orders', columns: [{ name: 'id' }] });
    expect(t).toEqual({
      source_id: 'sales-pg',
      domain_id: 'sales',
      schema: 'default',
      table: 'orders',
      columns: [{ name: 'id', unmasked_to: [] }],
      materialize: false,
      mv_refresh_interval: 300,
      mv_consistency: 'shared',
    });
    expect(Object.isFrozen(t.columns[0])).toBe(true);
    expect('alias' in t).toBe(false);
  });

  it('names: id, qualified and physical', () => {
    const t = makeTable({ source_id: 'a-b-c', domain_id: 'd', schema: 'public', table: 'orders', alias: 'o' });
    expect([tableId(t), qualifiedName(t), physicalName(t)]).toEqual(['o', 'd.o', 'a_b_c.public.orders']);
  });

  it('law: a catalog name never contains "-" and differs from the source id only there', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/), (id) => {
        const c = catalogName(id);
        expect(c).not.toContain('-');
        expect(c.length).toBe(id.length);
        for (let i = 0; i < id.length; i++) expect(c[i]).toBe(id[i] === '-' ? '_' : id[i]);
      }),
    );
  });

  it('findTable resolves an id, a qualified name, a physical name, or the bare name of an aliased table', () => {
    const c = makeCatalog({
      tables: [
        makeTable({ source_id: 'pg', domain_id: 'sales', schema: 'public', table: 'orders', alias: 'o' }),
        makeTable({ source_id: 'pg', domain_id: 'sales', schema: 'public', table: 'o2' }),
      ],
    });
    for (const ref of ['o', 'sales.o', 'pg.public.orders', 'orders']) expect(findTable(c, ref)?.table, ref).toBe('orders');
    expect(findTable(c, 'o2')?.table).toBe('o2');
    expect(findTable(c, 'nope')).toBeUndefined();
  });

  it('a table RLS rule overrides a domain rule for the same role', () => {
    const t = makeTable({ source_id: 'pg', domain_id: 'sales', table: 'orders' });
    const other = makeTable({ source_id: 'pg', domain_id: 'sales', table: 'items' });
    const c = makeCatalog({
      tables: [t, other],
      rls_rules: [
        { domain_id: 'sales', role_id: 'analyst', filter: 'region = 1' },
        { table_id: 'orders', role_id: 'analyst', filter: 'id > 0' },
      ],
    });
    expect(rlsFiltersFor(c, t, 'analyst')).toEqual(['id > 0']);
    expect(rlsFiltersFor(c, other, 'analyst')).toEqual(['region = 1']);
    expect(rlsFiltersFor(c, other, 'admin')).toEqual([]);
  });

  it('an RLS rule needs exactly one target', () => {
    expect(() => makeRlsRule({ role_id: 'r', filter: 'true' })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => makeRlsRule({ table_id: 't', domain_id: 'd', role_id: 'r', filter: 'true' })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});
