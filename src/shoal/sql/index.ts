/** shoal's SQL pipeline: the public boundary of src/shoal/sql (nothing else imports the AST library). */
export type { CatalogColumn, CatalogRole, CatalogSource, CatalogTable, ColumnMask, GovernanceCatalog } from './catalog.js';
export { createCatalog, type CatalogSpec, type ColumnSpec, type RlsSpec, type RoleSpec, type TableSpec } from './static-catalog.js';
export { catalogFromConfig, type CatalogOptions } from './catalog-from-config.js';
export { planQuery, type GovernedPlan, type PlanOptions, type PlanRequest } from './plan.js';
export type { Clock } from './current-time.js';
export type { Route, RouteOptions } from './route.js';
export type { OutputColumn } from './output-columns.js';
export type { SessionVars } from './session-vars.js';
export { checkDeterminism, type DeterminismIssue, type DeterminismReport } from './determinism.js';
