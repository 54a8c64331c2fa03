/** A governed test catalog: the study's policies (sales.customers RLS + email mask) plus a hidden column. */
import { type CatalogSpec, type GovernanceCatalog, type TableSpec, createCatalog } from '../../../src/shoal/sql/index.js';

type Col = readonly [name: string, type: string];

export const TPCH: Readonly<Record<string, readonly Col[]>> = {
  region: [['r_regionkey', 'integer'], ['r_name', 'varchar'], ['r_comment', 'varchar']],
  nation: [['n_nationkey', 'integer'], ['n_name', 'varchar'], ['n_regionkey', 'integer'], ['n_comment', 'varchar']],
  supplier: [['s_suppkey', 'integer'], ['s_name', 'varchar'], ['s_nationkey', 'integer'], ['s_acctbal', 'decimal']],
  customer: [['c_custkey', 'integer'], ['c_name', 'varchar'], ['c_nationkey', 'integer'], ['c_phone', 'varchar'], ['c_acctbal', 'decimal'], ['c_mktsegment', 'varchar'], ['c_comment', 'varchar']],
  orders: [['o_orderkey', 'integer'], ['o_custkey', 'integer'], ['o_orderstatus', 'varchar'], ['o_totalprice', 'decimal'], ['o_orderdate', 'date'], ['o_orderpriority', 'varchar'], ['o_shippriority', 'integer'], ['o_comment', 'varchar']],
  lineitem: [['l_orderkey', 'integer'], ['l_suppkey', 'integer'], ['l_quantity', 'integer'], ['l_extendedprice', 'decimal'], ['l_discount', 'decimal'], ['l_tax', 'decimal'], ['l_returnflag', 'varchar'], ['l_linestatus', 'varchar'], ['l_shipdate', 'date'], ['l_shipmode', 'varchar']],
};

export const CUSTOMERS: readonly Col[] = [['id', 'integer'], ['name', 'varchar'], ['email', 'varchar'], ['region', 'varchar'], ['signup', 'date'], ['score', 'integer'], ['tier', 'varchar'], ['ssn', 'varchar']];
export const PAYMENTS: readonly Col[] = [['id', 'integer'], ['customer_id', 'integer'], ['amount', 'integer'], ['paid_at', 'date']];

export interface SourceChoice { readonly id: string; readonly type: string; readonly binaryStrings?: boolean }

/** Every table in domain `sales`, all in one source (so queries may route directly). */
export function salesTables(source: SourceChoice, sourceSchema?: string): TableSpec[] {
  const mk = (table: string, cols: readonly Col[], policy: Record<string, Partial<TableSpec['columns'][number]>> = {}): TableSpec => ({
    tableKey: `sales.${table}`,
    domain: 'sales',
    source: { id: source.id, type: source.type, ...(source.binaryStrings ? { binaryStrings: true } : {}) },
    columns: cols.map(([name, type]) => ({ name, type, ...(policy[name] ?? {}) })),
    engineName: ['sales', table],
    sourceName: { ...(sourceSchema ? { schema: sourceSchema } : {}), table },
    names: [[source.id.replace(/-/g, '_'), 'public', table]],
  });
  return [
    ...Object.entries(TPCH).map(([t, cols]) => mk(t, cols, t === 'customer' ? {
      c_phone: { mask: { kind: 'regex', pattern: '^(.{3}).*$', replace: '$1****' }, unmaskedTo: ['admin'] },
    } : {})),
    mk('customers', CUSTOMERS, {
      email: { mask: { kind: 'regex', pattern: '^(.{2}).*(@.*)$', replace: '$1***$2' }, unmaskedTo: ['admin'] },
      score: { mask: { kind: 'constant', value: '0' }, unmaskedTo: ['admin'] },
      signup: { mask: { kind: 'truncate', precision: 'month' }, unmaskedTo: ['admin'] },
      ssn: { visibleTo: ['admin'] },
    }),
    mk('payments', PAYMENTS),
  ];
}

export function salesSpec(source: SourceChoice = { id: 'sales-pg', type: 'postgresql' }, sourceSchema?: string): CatalogSpec {
  return {
    tables: salesTables(source, sourceSchema),
    roles: [
      { id: 'admin', fullResults: true },
      { id: 'analyst', domainAccess: ['sales'] },
      { id: 'intern', parent: 'analyst', maxRows: 5 },
      { id: 'outsider', domainAccess: ['hr'] },
    ],
    rls: [
      { tableKey: 'sales.customers', roleId: 'analyst', filter: "region = current_setting('provisa.region')" },
      { tableKey: 'sales.customer', roleId: 'analyst', filter: "c_mktsegment <> 'AUTOMOBILE'" },
    ],
    defaultRowLimit: 1000,
  };
}

export const salesCatalog = (source?: SourceChoice, sourceSchema?: string): GovernanceCatalog => createCatalog(salesSpec(source, sourceSchema));
