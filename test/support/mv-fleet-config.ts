/**
 * The shoal config of the MV fleet tests and benchmarks: an orders CSV (`orders.csv` beside the
 * config) and one materialized view over it, `sales.by_region`, on a registry that owns the catalog
 * (`catalog: registry`, so tables can be changed through the admin API), with auth off and one
 * admin role that may also read the catalog (`query_development`).
 */
export const MV_FLEET_VIEW_SQL = 'SELECT region, sum(amount) AS total, count(*) AS n FROM "orders_csv"."default"."orders" GROUP BY region';

export function mvFleetConfig(registryUrl: string, viewSql = MV_FLEET_VIEW_SQL): string {
  return `
control_plane: {tenant_url: "${registryUrl}", catalog: registry}
auth: {provider: none}
domains: [{id: sales}]
sources:
  - {id: orders-csv, type: csv, path: orders.csv}
tables:
  - source_id: orders-csv
    domain_id: sales
    table: orders
    columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}, {name: amount, data_type: integer}]
  - source_id: __derived__
    domain_id: sales
    table: by_region
    materialize: true
    mv_refresh_interval: 3600
    view_sql: '${viewSql}'
    columns: [{name: region, data_type: varchar}, {name: total, data_type: bigint}, {name: n, data_type: bigint}]
roles:
  - {id: admin, capabilities: [admin, full_results, query_development], domain_access: ["*"]}
`;
}

/** The orders CSV at version k: every amount is scaled by k, so versions share no row. */
export function mvFleetOrders(k: number): string {
  return `id,region,amount\n1,eu,${10 * k}\n2,us,${20 * k}\n3,eu,${30 * k}\n4,apac,${5 * k}\n`;
}
