/**
 * Binding derived tables into runnable SQL: each MV a query (or another MV's view_sql) reads is
 * bound to its resolution — its snapshot, or its view_sql live — and each derived view to its
 * view_sql, dependencies first, as CTE bindings (mv-relation.ts).
 */
import type { Engine } from '../engine/engine.js';
import { ShoalError } from '../errors.js';
import { cycleError, type DerivedTable } from './derived-graph.js';
import type { MvInfo } from './mv-info.js';
import { engineNameWithMvs, snapshotBody, type MvBinding } from './mv-relation.js';
import type { MvResolution } from './mv-resolver.js';

export interface BoundQuery {
  readonly sql: string;
  /** `x-shoal-mv`: `<mv>=snapshot:<id>` or `<mv>=live`, comma-separated. */
  readonly headers: Readonly<Record<string, string>>;
  /** The shared snapshots bound (what `recheck` re-reads when the query fails). */
  readonly snapshots?: readonly { readonly mvId: string; readonly snapshotId: string }[];
}

/** The derived tables of the synced catalog, and the engine whose SQL the bindings are. */
export interface DerivedScope {
  /** Every derived table (MVs and derived views), by key. */
  readonly derived: ReadonlyMap<string, DerivedTable>;
  /** The MVs among them, by key. */
  readonly mvs: ReadonlyMap<string, MvInfo>;
  readonly engine: Engine;
}

/**
 * The CTE bindings that make relations over `reads` runnable, dependencies first: an MV bound to
 * its resolution (a snapshot, or its view_sql live), a derived view to its view_sql. `notes` are
 * the `x-shoal-mv` entries of every MV bound.
 */
export async function derivedBindings(
  scope: DerivedScope,
  reads: readonly string[],
  resolve: (mv: MvInfo) => Promise<MvResolution>,
): Promise<{ bindings: MvBinding[]; notes: string[] }> {
  const bindings: MvBinding[] = [];
  const notes: string[] = [];
  const done = new Set<string>();
  const visit = async (key: string, path: readonly string[]): Promise<void> => {
    const d = scope.derived.get(key);
    if (!d || done.has(key)) return;
    if (path.includes(key)) throw cycleError([...path.slice(path.indexOf(key)), key]);
    const mv = d.materialized ? scope.mvs.get(key) : undefined;
    if (mv) {
      const r = await resolve(mv);
      if (r.kind === 'snapshot') {
        bindings.push({ relation: mv.relation, body: (await scope.engine.snapshots?.body(r.path)) ?? snapshotBody(r.path) });
        notes.push(`${mv.id}=${mv.table.mv_consistency === 'shared' ? 'snapshot' : 'local'}:${r.snapshotId}`);
        done.add(key);
        return;
      }
    }
    if (d.engineSql === null) {
      throw new ShoalError(
        'MV_VIEW_SQL_INVALID',
        mv ? `MV ${d.id} has never been materialized and its view_sql cannot run: ${d.error ?? 'unplannable'}` : `view ${d.id} cannot run: ${d.error ?? 'unplannable'}`,
        { where: `tables.${d.table.table}.view_sql`, hint: 'fix the view_sql in the registry' },
      );
    }
    for (const next of d.reads) await visit(next, [...path, key]);
    bindings.push({ relation: engineNameWithMvs(d.table)[0]!, body: d.engineSql });
    if (mv) notes.push(`${mv.id}=live`);
    done.add(key);
  };
  for (const key of new Set(reads)) await visit(key.toLowerCase(), []);
  return { bindings, notes };
}
