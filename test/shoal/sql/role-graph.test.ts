import { describe, expect, it } from 'vitest';
import { makeCatalog, makeRelationship, makeTable } from '../../../src/shoal/config/model.js';
import { catalogFromConfig } from '../../../src/shoal/sql/index.js';
import { roleGraph } from '../../../src/shoal/sql/role-graph.js';

/** Orders → customers (to-one), customers → orders (to-many), orders → staff (another domain). */
const model = makeCatalog({
  domains: [{ id: 'sales' }, { id: 'hr' }],
  sources: [{ id: 'f', type: 'csv', path: '/x.csv' }],
  tables: [
    makeTable({ source_id: 'f', domain_id: 'sales', table: 'orders', columns: [
      { name: 'id', data_type: 'integer', is_primary_key: true },
      { name: 'customer_id', data_type: 'integer' },
      { name: 'clerk_id', data_type: 'integer' },
      { name: 'tag', data_type: 'varchar', visible_to: ['admin'] },
    ] }),
    makeTable({ source_id: 'f', domain_id: 'sales', table: 'customers', columns: [
      { name: 'id', data_type: 'integer', is_primary_key: true, unmasked_to: ['admin'], mask_type: 'constant', mask_value: '0' },
      { name: 'code', data_type: 'varchar' },
      { name: 'name', data_type: 'varchar' },
    ] }),
    makeTable({ source_id: 'f', domain_id: 'hr', table: 'staff', columns: [{ name: 'id', data_type: 'integer', is_primary_key: true }] }),
  ],
  relationships: [
    makeRelationship({ id: 'customer', source_table_id: 'orders', target_table_id: 'customers', source_column: 'customer_id', target_column: 'id', cardinality: 'many-to-one' }),
    makeRelationship({ id: 'by_code', source_table_id: 'orders', target_table_id: 'customers', source_column: 'tag', target_column: 'code', cardinality: 'many-to-one', graphql_alias: 'tagged' }),
    makeRelationship({ id: 'clerk', source_table_id: 'orders', target_table_id: 'staff', source_column: 'clerk_id', target_column: 'id', cardinality: 'many-to-one' }),
    makeRelationship({ id: 'orders', source_table_id: 'customers', target_table_id: 'orders', source_column: 'code', target_column: 'tag', cardinality: 'one-to-many' }),
  ],
  roles: [
    { id: 'admin', capabilities: ['admin'], domain_access: ['*'] },
    { id: 'analyst', capabilities: ['query_development'], domain_access: ['sales'] },
  ],
});

const graph = (role: string) => Object.fromEntries(roleGraph(catalogFromConfig(model), model, role).map((t) => [t.table, t]));

describe('the graph a role may follow', () => {
  it('admin follows every relationship, by its GraphQL alias when it has one', () => {
    const g = graph('admin');
    expect(g['sales.orders']!.relationships.map((r) => r.name)).toEqual(['customer', 'tagged', 'clerk']);
    expect(g['sales.customers']!.relationships).toEqual([{ name: 'orders', cardinality: 'one-to-many', column: 'code', target: 'sales.orders', targetColumn: 'tag' }]);
    expect(g['sales.customers']!.key).toEqual(['id']);
  });

  it('a relationship over a hidden table, a hidden column or a masked join column is not followed', () => {
    const g = graph('analyst');
    expect(Object.keys(g).sort()).toEqual(['sales.customers', 'sales.orders']);
    // customer: customers.id is masked for the analyst; tagged and orders: tag is hidden; clerk: hr is not the analyst's
    expect(g['sales.orders']!.relationships).toEqual([]);
    expect(g['sales.customers']!.relationships).toEqual([]);
    // a masked primary key does not break ties either
    expect(g['sales.customers']!.key).toEqual([]);
    expect(g['sales.orders']!.columns.map((c) => c.name)).toEqual(['id', 'customer_id', 'clerk_id']);
  });
});

describe('relationship columns', () => {
  it('are named as the tables declare them, whatever case the relationship writes them in', () => {
    const m = makeCatalog({
      domains: [{ id: 'sales' }],
      sources: [{ id: 'f', type: 'csv', path: '/x.csv' }],
      tables: [
        makeTable({ source_id: 'f', domain_id: 'sales', table: 'orders', columns: [{ name: 'id', data_type: 'integer' }, { name: 'customer_id', data_type: 'integer' }] }),
        makeTable({ source_id: 'f', domain_id: 'sales', table: 'customers', columns: [{ name: 'ID', data_type: 'integer' }] }),
      ],
      relationships: [makeRelationship({ id: 'customer', source_table_id: 'orders', target_table_id: 'customers', source_column: 'Customer_Id', target_column: 'id', cardinality: 'many-to-one' })],
      roles: [{ id: 'admin', capabilities: ['admin'], domain_access: ['*'] }],
    });
    const orders = roleGraph(catalogFromConfig(m), m, 'admin').find((t) => t.table === 'sales.orders')!;
    expect(orders.relationships).toEqual([{ name: 'customer', cardinality: 'many-to-one', column: 'customer_id', target: 'sales.customers', targetColumn: 'ID' }]);
  });
});
