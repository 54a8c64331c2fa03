import type { GovernanceCatalog } from './catalog.js';
import { catalogCommand } from './catalog-commands.js';
import type { PushdownSpec } from '../engine/engine.js';
import type { Clock } from './current-time.js';
import { generateFor } from './generate.js';
import { governStatement } from './govern.js';
import { type HotRelationOf, bindHotTables } from './hot-inline.js';
import type { OutputColumn } from './output-columns.js';
import { parseQuery } from './parse.js';
import { type TableRefOf, derivePushdown, narrowProjections } from './pushdown.js';
import { type Route, type RouteOptions, decideRoute } from './route.js';
import type { SessionVars } from './session-vars.js';
import { validateStatement } from './validate.js';

export interface PlanRequest {
  readonly sql: string;
  readonly role: string;
  /** Session variables, e.g. `{'provisa.user_region': 'EU'}` (read by `current_setting`). */
  readonly vars?: SessionVars;
}

/** A governed query, rendered for the route it will run on. */
export interface GovernedPlan {
  readonly route: Route;
  /** SQL generated for the route: DuckDB over engine names, or the source's dialect over its own names. */
  readonly sql: string;
  /** Result columns with PostgreSQL's names (every route aliases them identically); type when known. */
  readonly columns: readonly OutputColumn[];
  /** Keys (`<domain>.<table>`) of the catalog tables read. */
  readonly tables: readonly string[];
  /** The row cap applied (the query returns at most this many rows), if any. */
  readonly rowCap?: number;
  /** Why this route was chosen. */
  readonly routeReason: string;
  /**
   * Engine route only: per landed table reference, the columns and `col op literal` conjuncts
   * the engine may push into the source statement (see pushdown.ts). Absent: land whole tables.
   */
  readonly pushdown?: readonly PushdownSpec[];
  /** Engine route only: keys of the hot tables bound to their cached relation (see hot-inline.ts). */
  readonly hot?: readonly string[];
}

/**
 * parse → validate → govern → route → generate. Every failure is a ShoalError with a stable
 * code (SQL_SYNTAX, SQL_NOT_SELECT, SQL_UNKNOWN_TABLE, SQL_UNKNOWN_COLUMN (a hidden table or
 * column is reported as unknown), SQL_UNKNOWN_ROLE, SQL_MISSING_VAR, …), a position where one exists, and a hint.
 */
export interface PlanOptions extends RouteOptions {
  /** The clock `now()` / `current_date` are read from, once per query, in UTC (default: system time). */
  readonly clock?: Clock;
  /** Derive pushdown specs on the engine route (default true). */
  readonly pushdown?: boolean;
  /** The engine table a catalog table lands as (default: its three-part physical engine name). */
  readonly tableRef?: TableRefOf;
  /** Hot tables: the cached relation a table is read from on the engine route (never on the direct route). */
  readonly hotRelation?: HotRelationOf;
}

export function planQuery(req: PlanRequest, catalog: GovernanceCatalog, options: PlanOptions = {}): GovernedPlan {
  // SHOW TABLES / DESCRIBE: queries over the role's information_schema (catalog-commands.ts)
  const command = catalogCommand(req.sql);
  if (command) {
    const sql = command.kind === 'show_tables' ? command.sql
      : command.sqlFor(planQuery({ ...req, sql: command.probe }, catalog, { route: 'engine', pushdown: false }).tables[0]!);
    return planQuery({ ...req, sql }, catalog, options);
  }
  const stmt = parseQuery(req.sql);
  validateStatement(stmt, req.sql);
  const gov = governStatement(stmt, catalog, req.role, req.vars ?? {}, req.sql, options.clock);
  const decision = decideRoute(gov, options);
  const pushing = decision.route.kind === 'engine' && options.pushdown !== false;
  // pushdown may narrow each governed subquery to the columns the query names (filters untouched)
  const narrowed = pushing ? narrowProjections(gov) : gov;
  const hot = decision.route.kind === 'engine' && options.hotRelation ? bindHotTables(narrowed, options.hotRelation) : undefined;
  const planned = hot?.gov ?? narrowed;
  const sql = generateFor(planned, decision.target);
  const pushdown = pushing ? derivePushdown(planned, options.tableRef ? { tableRef: options.tableRef } : {}) : undefined;
  return {
    route: decision.route,
    sql,
    columns: gov.columns,
    tables: gov.tables.map((t) => t.tableKey),
    ...(gov.rowCap !== undefined ? { rowCap: gov.rowCap } : {}),
    routeReason: decision.reason,
    ...(pushdown !== undefined ? { pushdown } : {}),
    ...(hot && hot.inlined.length > 0 ? { hot: hot.inlined } : {}),
  };
}
