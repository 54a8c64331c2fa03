/**
 * One request's planning as plain data: what the planner needs and what it gives back, so the
 * same work runs on the event loop or in a planner thread (planner-pool.ts) with the same result
 * and the same typed errors. Nothing here holds a function or a class instance across the
 * boundary: the governance catalog is rebuilt from the catalog model on each side, hot tables
 * arrive as the relation names that may be bound, and errors travel as their fields.
 */
import { isCodedError } from '../../core/errors.js';
import { requestSqlVerdict, type TextVerdict } from '../cache/result-key.js';
import type { CatalogModel } from '../config/model.js';
import { shoalErrorFrom } from '../errors.js';
import { engineNameWithMvs } from '../mv/mv-relation.js';
import { limitToDomains } from '../sql/domain-scope.js';
import { catalogFromConfig, planQuery, type GovernanceCatalog, type GovernedPlan } from '../sql/index.js';

export interface PlanJob {
  readonly sql: string;
  readonly role: string;
  readonly vars: Readonly<Record<string, string>>;
  /** The only domains the query may read (a `role_id:domain_id` assignment). */
  readonly domains?: readonly string[];
  /** The engine the engine route runs on: its SQL dialect is generated (default duckdb). */
  readonly engine?: 'duckdb' | 'trino';
  /** Hot tables that may be bound now: `[table key, engine name parts of its resident copy]`. Absent: hot tables are off. */
  readonly hot?: readonly (readonly [string, readonly string[]])[];
  /** Also analyse the text for the result cache (parsing it again costs as much as planning). */
  readonly verdict: boolean;
}

export interface PlanOutcome {
  readonly plan: GovernedPlan;
  readonly verdict?: TextVerdict;
  /** The plan read the clock (`now()`, `current_date`, in the text or a row filter): it holds an instant and is never cached. */
  readonly readsClock?: true;
}

/** An error's fields, as they cross a thread boundary. */
export interface ErrorFields {
  readonly code?: string;
  readonly message: string;
  readonly where?: string;
  readonly position?: { readonly line: number; readonly column: number };
  readonly hint?: string;
  readonly stack?: string;
}

/** The governance catalog an instance plans against (MVs and derived views under their relation names). */
export function governanceOf(model: CatalogModel): GovernanceCatalog {
  return catalogFromConfig(model, { engineName: engineNameWithMvs });
}

/** Plan one request against `governance`; throws what planQuery throws. */
export function runPlanJob(job: PlanJob, governance: GovernanceCatalog): PlanOutcome {
  const catalog = job.domains ? limitToDomains(governance, job.domains) : governance;
  const hot = job.hot ? new Map(job.hot) : undefined;
  let readsClock = false;
  const plan = planQuery({ sql: job.sql, role: job.role, vars: job.vars }, catalog, {
    ...(job.engine !== undefined ? { engine: job.engine } : {}),
    ...(hot ? { hotRelation: (key: string) => hot.get(key) } : {}),
    clock: () => {
      readsClock = true;
      return new Date();
    },
  });
  return { plan, ...(job.verdict ? { verdict: requestSqlVerdict(job.sql) } : {}), ...(readsClock ? { readsClock: true as const } : {}) };
}

export function errorFields(e: unknown): ErrorFields {
  if (isCodedError(e)) {
    return {
      code: e.code,
      message: e.message,
      ...(e.where === undefined ? {} : { where: e.where }),
      ...(e.position === undefined ? {} : { position: { line: e.position.line, column: e.position.column } }),
      ...(e.hint === undefined ? {} : { hint: e.hint }),
    };
  }
  const err = e instanceof Error ? e : new Error(String(e));
  return { message: err.message, ...(err.stack === undefined ? {} : { stack: err.stack }) };
}

/** The error again: a ShoalError with its code, position and hint, or a plain Error (an internal fault, a 500). */
export function errorFrom(f: ErrorFields): Error {
  if (f.code !== undefined) {
    return shoalErrorFrom(f.code, f.message, {
      ...(f.where === undefined ? {} : { where: f.where }),
      ...(f.position === undefined ? {} : { position: f.position }),
      ...(f.hint === undefined ? {} : { hint: f.hint }),
    });
  }
  const e = new Error(`planner thread: ${f.message}`);
  if (f.stack !== undefined) e.stack = f.stack;
  return e;
}
