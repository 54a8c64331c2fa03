/**
 * shoal's SQL pipeline, the public boundary of src/shoal/sql (nothing else imports the AST
 * library, @polyglot-sql/sdk 0.12.1): parse → validate → govern → route → generate.
 *
 * - Input dialect: PostgreSQL-flavoured SELECT (or a set operation), one statement.
 * - Governance (law S6): each registered-table reference becomes a governed subquery with the
 *   role's visible columns, masks applied at the source and RLS filters inside; CTEs are renamed;
 *   `current_setting('provisa.<var>')` and `now()`/`current_date` become literals.
 * - Route: direct on a PostgreSQL / MySQL / MariaDB / SQLite source only when every table lives
 *   there and every construct is in that target's certified subset; otherwise the engine.
 * - Contracts for the engine: table names are `CatalogTable.engineName` (default: the physical
 *   `<source_catalog>.<schema>.<table>`); the DuckDB connection must `SET integer_division = true`
 *   for PostgreSQL's integer `/`. For MySQL sources with `*_bin` collations set
 *   `CatalogSource.binaryStrings` to let string predicates run directly.
 */
export type { CatalogColumn, CatalogRole, CatalogSource, CatalogTable, ColumnMask, GovernanceCatalog } from './catalog.js';
export { createCatalog, type CatalogSpec, type ColumnSpec, type RlsSpec, type RoleSpec, type TableSpec } from './static-catalog.js';
export { catalogFromConfig, type CatalogOptions } from './catalog-from-config.js';
export { planQuery, type GovernedPlan, type PlanOptions, type PlanRequest } from './plan.js';
export { defaultTableRef, derivePushdown, type PushdownOptions, type TableRefOf } from './pushdown.js';
export type { HotRelationOf } from './hot-inline.js';
export type { Clock } from './current-time.js';
export type { Route, RouteOptions } from './route.js';
export type { OutputColumn } from './output-columns.js';
export type { SessionVars } from './session-vars.js';
export {
  admitMaterializedView,
  checkDeterminism,
  checkViewDeterminism,
  type DeterminismIssue,
  type DeterminismOptions,
  type DeterminismReport,
  type DeterminismVerdict,
  type MvAdmission,
  type MvConsistencyTier,
} from './determinism.js';
