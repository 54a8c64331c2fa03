/**
 * One governed query on one instance's engine, as the engine parity tests compare it: planned for
 * the viewer and the engine's dialect, run with the plan's pushdown, and reduced to a multiset of
 * rows, or the error code when planning or the engine refuses.
 */
import type { Cell } from '../../src/shoal/engine/engine.js';
import { ShoalError } from '../../src/shoal/errors.js';
import type { ShoalInstance } from '../../src/shoal/instance/instance.js';
import { type GovernanceCatalog, planQuery } from '../../src/shoal/sql/index.js';
import { type Viewer, collect } from '../shoal/sql/pushdown-law.js';

export type Outcome = { readonly ok: true; readonly rows: string[] } | { readonly ok: false; readonly code: string };

export const canon = (rows: readonly (readonly Cell[])[]): string[] => rows.map((r) => JSON.stringify(r)).sort();

export async function governedOutcome(instance: ShoalInstance, governance: GovernanceCatalog, sql: string, viewer: Viewer): Promise<Outcome> {
  let plan;
  try {
    plan = planQuery({ sql, role: viewer.role, vars: viewer.vars }, governance, { route: 'engine', engine: instance.engine.name });
  } catch (e) {
    if (e instanceof ShoalError) return { ok: false, code: e.code };
    throw e;
  }
  try {
    return { ok: true, rows: canon(await collect(instance.engine.execute(plan.sql, plan.pushdown ? { pushdown: plan.pushdown } : {}))) };
  } catch (e) {
    if (e instanceof ShoalError) return { ok: false, code: e.code };
    throw e;
  }
}

/** Trino may fail closed where DuckDB answers (a construct outside its certified subset), never answer differently. */
export const TRINO_FAILS_CLOSED_CODES: readonly string[] = ['SQL_UNSUPPORTED', 'ENGINE_QUERY_FAILED', 'SQL_GENERATE'];
