/**
 * The tables defined by `view_sql` (source `__derived__`), planned for the service role, and what
 * each one reads. Two kinds:
 *
 * - a materialized view (`materialize: true`): served from its published snapshot (or live until
 *   it has one);
 * - a derived view (`materialize: false` or absent): a governed view, always executed live.
 *
 * Either may read the other (an MV over an MV, a view over an MV, an MV over a view). Each derived
 * table is its own relation in the governed SQL (see ./mv-relation.ts), so its view_sql planned here
 * names the derived tables it reads by THEIR relations, bound per query or per refresh. A derived
 * table that reads itself, directly or through others, can never be computed: `derivedCycle` finds
 * it (registration refuses it; a service that meets one anyway reports the tables as unplannable).
 */
import { qualifiedName, type CatalogModel, type TableConfig } from '../config/model.js';
import { ShoalError } from '../errors.js';
import { planQuery, type GovernanceCatalog } from '../sql/index.js';
import type { EngineDialect } from '../sql/generate.js';
import { SERVICE_ROLE_ID, serviceCatalog } from './service-identity.js';
import { isDerivedTable, isMaterializedView } from './mv-relation.js';

/** A derived table as planned for the service role. */
export interface DerivedTable {
  /** Its qualified name `<domain>.<alias ?? table>` (the key, lower-cased, is the map's key). */
  readonly id: string;
  readonly table: TableConfig;
  readonly materialized: boolean;
  /** view_sql as engine SQL for the service role; null when it does not plan (see `error`). */
  readonly engineSql: string | null;
  readonly error: string | null;
  /** Keys (`<domain>.<table>`, lower case) of the registered tables view_sql reads, derived or not. */
  readonly reads: readonly string[];
}

/**
 * Plan every derived table of a model (absolute paths not needed: nothing is read). A cycle makes
 * every table on it unplannable, with an error that names the cycle.
 */
export function planDerivedTables(model: CatalogModel, service: GovernanceCatalog = serviceCatalog(model), engine: EngineDialect = 'duckdb'): Map<string, DerivedTable> {
  const planned = new Map<string, DerivedTable>();
  for (const t of model.tables) {
    if (!isDerivedTable(t)) continue;
    const id = qualifiedName(t);
    let engineSql: string | null = null;
    let error: string | null = null;
    let reads: readonly string[] = [];
    try {
      const plan = planQuery({ sql: t.view_sql!, role: SERVICE_ROLE_ID }, service, { route: 'engine', engine });
      engineSql = plan.sql;
      reads = [...new Set(plan.tables.map((k) => k.toLowerCase()))];
    } catch (e) {
      error = `view_sql of ${id}: ${(e as Error).message}`;
    }
    planned.set(id.toLowerCase(), { id, table: t, materialized: isMaterializedView(t), engineSql, error, reads });
  }
  const edges = new Map([...planned].map(([k, d]) => [k, d.reads]));
  for (const [key, d] of planned) {
    const cycle = derivedCycle(edges, key);
    if (cycle) planned.set(key, { ...d, engineSql: null, error: cycleError(cycle).message });
  }
  return planned;
}

/**
 * The cycle through `start` in a read graph (keys of the derived tables each reads), as the path
 * `[start, …, start]`; null when `start` is on none.
 */
export function derivedCycle(reads: ReadonlyMap<string, readonly string[]>, start: string): string[] | null {
  const seen = new Set<string>();
  const walk = (key: string, path: readonly string[]): string[] | null => {
    for (const next of reads.get(key) ?? []) {
      if (next === start) return [...path, next];
      if (seen.has(next) || !reads.has(next)) continue;
      seen.add(next);
      const found = walk(next, [...path, next]);
      if (found) return found;
    }
    return null;
  };
  return walk(start, [start]);
}

/** The error a derived table on a read cycle gets. */
export function cycleError(cycle: readonly string[]): ShoalError {
  return new ShoalError('MV_DERIVED_CYCLE', `derived table ${cycle[0]} reads itself: ${cycle.join(' -> ')}`, {
    where: cycle[0],
    hint: 'a view_sql may read other views and MVs, but never (through them) its own table',
  });
}

/**
 * How many MVs a derived table sits on (through views and MVs): 0 for one over source tables only.
 * The refresh loop refreshes the MVs underneath first, so one tick carries a change all the way up.
 */
export function mvDepth(planned: ReadonlyMap<string, DerivedTable>, key: string, seen: ReadonlySet<string> = new Set()): number {
  const d = planned.get(key);
  if (!d || seen.has(key)) return 0;
  const next = new Set([...seen, key]);
  let depth = 0;
  for (const r of d.reads) {
    const up = planned.get(r);
    if (up) depth = Math.max(depth, mvDepth(planned, r, next) + (up.materialized ? 1 : 0));
  }
  return depth;
}
