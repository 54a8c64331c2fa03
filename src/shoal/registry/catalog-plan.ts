/**
 * The difference between two catalogs as a plan: per object kind and id, whether applying `next`
 * over `current` adds, changes or deletes it. Keys and equality are those the registry writes with
 * (./catalog-rows.ts), so a plan with no entries is exactly an apply that writes nothing.
 */
import { tableId, type CatalogModel, type ColumnConfig } from '../config/model.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { rlsKey } from './catalog-rows.js';

export const PLAN_KINDS = ['source', 'domain', 'table', 'relationship', 'role', 'rls_rule'] as const;
export type PlanKind = (typeof PLAN_KINDS)[number];
export type PlanAction = 'add' | 'change' | 'delete';

export interface PlanEntry {
  readonly kind: PlanKind;
  /** The object's key: a source/domain/role/relationship id, a table id, or an RLS rule key (`table orders role analyst`). */
  readonly id: string;
  readonly action: PlanAction;
  /** For a changed table: which columns were added, changed or removed, and whether other fields changed. */
  readonly detail?: readonly string[];
}

export interface CatalogPlan {
  /** The registry epoch the plan was computed against. */
  readonly epoch: number;
  /** Ordered by kind (as PLAN_KINDS), then action (add, change, delete), then id. */
  readonly entries: readonly PlanEntry[];
}

const ACTION_ORDER: Readonly<Record<PlanAction, number>> = { add: 0, change: 1, delete: 2 };

/** What applying `next` over `current` would do. */
export function planCatalog(current: CatalogModel, next: CatalogModel): PlanEntry[] {
  const entries: PlanEntry[] = [];
  const compare = <T>(kind: PlanKind, before: readonly T[], after: readonly T[], key: (v: T) => string, detail?: (a: T, b: T) => string[]) => {
    const a = new Map(before.map((v) => [key(v), v]));
    const b = new Map(after.map((v) => [key(v), v]));
    for (const [id, v] of b) {
      const old = a.get(id);
      if (old === undefined) entries.push({ kind, id, action: 'add' });
      else if (canonicalJson(old) !== canonicalJson(v)) entries.push({ kind, id, action: 'change', ...(detail ? { detail: detail(old, v) } : {}) });
    }
    for (const id of a.keys()) if (!b.has(id)) entries.push({ kind, id, action: 'delete' });
  };
  compare('source', current.sources, next.sources, (s) => s.id);
  compare('domain', current.domains, next.domains, (d) => d.id);
  compare('table', current.tables, next.tables, tableId, (a, b) => [
    ...columnChanges(a.columns, b.columns),
    ...(canonicalJson({ ...a, columns: [] }) !== canonicalJson({ ...b, columns: [] }) ? ['table fields'] : []),
  ]);
  compare('relationship', current.relationships, next.relationships, (r) => r.id);
  compare('role', current.roles, next.roles, (r) => r.id);
  compare('rls_rule', current.rls_rules, next.rls_rules, rlsKey);
  const kindOrder = (k: PlanKind) => PLAN_KINDS.indexOf(k);
  return entries.sort((x, y) => kindOrder(x.kind) - kindOrder(y.kind) || ACTION_ORDER[x.action] - ACTION_ORDER[y.action] || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
}

function columnChanges(before: readonly ColumnConfig[], after: readonly ColumnConfig[]): string[] {
  const a = new Map(before.map((c) => [c.name, c]));
  const b = new Map(after.map((c) => [c.name, c]));
  const out: string[] = [];
  for (const [name, c] of b) {
    const old = a.get(name);
    if (old === undefined) out.push(`add column ${name}`);
    else if (canonicalJson(old) !== canonicalJson(c)) out.push(`change column ${name}`);
  }
  for (const name of a.keys()) if (!b.has(name)) out.push(`delete column ${name}`);
  // the columns both have, in each one's order: a reorder is a change too (column order is kept)
  const shared = (cols: readonly ColumnConfig[]) => cols.map((c) => c.name).filter((n) => a.has(n) && b.has(n)).join(',');
  if (shared(before) !== shared(after)) out.push('column order');
  return out;
}

/** One line per entry, for people: `+ table orders`, `~ table orders (add column x)`, `- rls_rule table orders role analyst`. */
export function formatPlan(entries: readonly PlanEntry[]): string[] {
  const sign: Readonly<Record<PlanAction, string>> = { add: '+', change: '~', delete: '-' };
  return entries.map((e) => `${sign[e.action]} ${e.kind} ${e.id}${e.detail && e.detail.length > 0 ? ` (${e.detail.join(', ')})` : ''}`);
}
