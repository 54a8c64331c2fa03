/**
 * What `shoal config check` binds without connecting: RLS filters against the declared columns,
 * view_sql against the declared tables and columns, a truncate mask's need for a data_type.
 */
import { describe, expect, it } from 'vitest';
import { bindStatically } from '../../../src/shoal/check/static-binding.js';
import { checkConfig } from '../../../src/shoal/check/load-config.js';
import { goodConfig } from './check-fixture.js';

const bind = (text: string) => {
  const loaded = checkConfig({ text }, {});
  expect(loaded.errors).toEqual([]);
  return bindStatically(loaded.config!);
};

describe('config check (static binding)', () => {
  it('a config whose rules and views read declared columns has no error; a rule on a column only the source has is a warning', () => {
    const r = bind(goodConfig());
    expect(r.errors).toEqual([]);
    // customers' rule reads region, which the source has but the config does not declare
    expect(r.warnings.map((w) => [w.code, w.path, w.subject])).toEqual([['CONFIG_RLS_UNDECLARED_COLUMN', 'rls_rules[1].filter', 'table customers, role analyst']]);
  });

  it('an RLS filter on a misspelt column is reported with the rule and a did-you-mean', () => {
    const r = bind(goodConfig().replace("filter: \"region = current_setting('provisa.user_region')\"", "filter: \"regoin = current_setting('provisa.user_region')\""));
    const w = r.warnings.find((x) => x.path === 'rls_rules[0].filter');
    expect(w).toMatchObject({ code: 'CONFIG_RLS_UNDECLARED_COLUMN', subject: 'table orders, role analyst', hint: 'did you mean "region"?' });
    expect(w!.message).toContain('column "regoin"');
  });

  it('a domain rule is bound against every table of its domain it governs', () => {
    const r = bind(goodConfig().replace('  - {table_id: customers, role_id: analyst', '  - {domain_id: sales, role_id: admin, filter: "segment <> \'x\'"}\n  - {table_id: customers, role_id: analyst'));
    const governed = r.warnings.filter((w) => w.path === 'rls_rules[1].filter').map((w) => /which (\S+)/.exec(w.message)?.[1]);
    // segments declares segment; every other table of the domain does not
    expect(governed).toEqual(['sales.orders', 'sales.customers', 'sales.rates', 'sales.tickets', 'sales.eu_orders']);
  });

  it('an RLS filter that does not parse is an error', () => {
    const r = bind(goodConfig().replace(`filter: "region = 'eu'"`, `filter: "region = = 'eu'"`));
    expect(r.errors.map((e) => [e.code, e.path])).toEqual([['CONFIG_RLS_INVALID', 'rls_rules[1].filter']]);
  });

  it('view_sql over an unknown table, or an undeclared column, is an error at tables[i].view_sql', () => {
    const t = bind(goodConfig().replace('FROM sales.orders WHERE', 'FROM shop.main.ordrs WHERE'));
    expect(t.errors.map((e) => [e.code, e.path, e.message])).toEqual([
      ['CONFIG_VIEW_SQL_INVALID', 'tables[5].view_sql', 'table "shop.main.ordrs" does not exist among the registered tables'],
    ]);
    const c = bind(goodConfig().replace('SELECT id, amount FROM', 'SELECT id, amount, placed_at FROM'));
    expect(c.errors.map((e) => [e.code, e.path])).toEqual([['CONFIG_VIEW_SQL_INVALID', 'tables[5].view_sql']]);
    expect(c.errors[0]!.message).toContain('"placed_at"');
  });

  it('a truncate mask on a column with no data_type is an error', () => {
    const r = bind(goodConfig().replace('{name: shipped_at, data_type: timestamp, mask_type', '{name: shipped_at, mask_type'));
    expect(r.errors.map((e) => [e.code, e.path])).toEqual([['CONFIG_MASK_UNTYPED', 'tables[0].columns[3].mask_type']]);
  });
});
