/**
 * A result's wire columns (name and PostgreSQL type) and the class each column's cells are
 * written with (normalize-cells.ts), from the plan's output columns and what the route reported
 * (the source driver's column metadata, or the engine's column types).
 *
 * Remembered per plan: every hit of one plan-cache entry shares the plan's `columns` array, so a
 * repeat whose route reports the same metadata reuses the answer instead of classifying every
 * column again. A route that reports anything else (a column's type changed at the source) gets
 * an answer made afresh.
 */
import type { ColumnInfo } from '../engine/engine.js';
import type { SourceColumn } from '../sources/source-driver.js';
import type { OutputColumn } from '../sql/index.js';
import { cellClass, numberClassOfSourceColumn, numberClassOfType, type CellClass } from './normalize-cells.js';
import { pgTypeOfEngine, pgTypeOfSource } from './pg-type-names.js';

export interface ResultColumns {
  readonly typed: readonly { readonly name: string; readonly type: string }[];
  readonly classes: readonly CellClass[];
}

interface Remembered extends ResultColumns {
  /** What the route reported, flattened: compared value by value. */
  readonly reported: readonly unknown[];
}

const byPlan = new WeakMap<readonly OutputColumn[], Remembered>();

function remembered(plan: readonly OutputColumn[], reported: readonly unknown[], make: () => ResultColumns): ResultColumns {
  const held = byPlan.get(plan);
  if (held !== undefined && held.reported.length === reported.length && held.reported.every((v, i) => v === reported[i])) return held;
  const made = { ...make(), reported };
  byPlan.set(plan, made);
  return made;
}

/** The direct route: a column the plan could not type takes the source's type. */
export function directResultColumns(plan: readonly OutputColumn[], fetched: readonly SourceColumn[]): ResultColumns {
  const reported: unknown[] = [];
  for (const c of fetched) for (const k in c) reported.push(k, c[k as keyof SourceColumn]);
  return remembered(plan, reported, () => {
    const typed = plan.map((c, i) => {
      const src = fetched[i];
      return { name: c.name, type: c.type !== undefined && c.type !== 'unknown' ? c.type : ((src && pgTypeOfSource(src)) ?? c.type ?? 'unknown') };
    });
    const classes = typed.map((c, i) => cellClass(c.type, fetched[i] ? numberClassOfSourceColumn(fetched[i]) : 'other', plan[i]?.scale));
    return { typed, classes };
  });
}

/** The engine route: a column the plan could not type takes the engine's type (none when the result is empty). */
export function engineResultColumns(plan: readonly OutputColumn[], engine: readonly ColumnInfo[] | undefined): ResultColumns {
  const reported: unknown[] = engine === undefined ? [] : engine.map((c) => c.type);
  if (engine === undefined) reported.push(undefined); // an empty result, not a result of no columns
  return remembered(plan, reported, () => {
    const typed = plan.map((c, i) => {
      const e = engine?.[i]?.type;
      return { name: c.name, type: c.type !== undefined && c.type !== 'unknown' ? c.type : e !== undefined ? pgTypeOfEngine(e) : (c.type ?? 'unknown') };
    });
    const classes = typed.map((c, i) => cellClass(c.type, numberClassOfType(engine?.[i]?.type), plan[i]?.scale));
    return { typed, classes };
  });
}
