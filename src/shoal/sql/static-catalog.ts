import type { CatalogRole, CatalogTable, ColumnMask, GovernanceCatalog } from './catalog.js';

/** A column with its per-role policy, as the config model states it. */
export interface ColumnSpec {
  readonly name: string;
  readonly type?: string;
  /** Roles that see the column (a parent role's grant covers its children). Absent: everyone. */
  readonly visibleTo?: readonly string[];
  /** Roles that see the raw value of a masked column. */
  readonly unmaskedTo?: readonly string[];
  readonly mask?: ColumnMask;
}

export interface TableSpec extends Omit<CatalogTable, 'columns'> {
  readonly columns: readonly ColumnSpec[];
  /** Extra names the table answers to besides `[domain, name]` and its physical three parts. */
  readonly names: readonly (readonly string[])[];
}

export interface RoleSpec {
  readonly id: string;
  readonly parent?: string;
  readonly maxRows?: number;
  /** Roles with `full_results` are not held to the default row limit. */
  readonly fullResults?: boolean;
  /** Domains the role may query; `*` is all. Absent: all. */
  readonly domainAccess?: readonly string[];
}

export interface RlsSpec {
  readonly tableKey: string;
  readonly roleId: string;
  readonly filter: string;
}

export interface CatalogSpec {
  readonly tables: readonly TableSpec[];
  readonly roles: readonly RoleSpec[];
  readonly rls: readonly RlsSpec[];
  /** Cap for roles without `full_results` and without their own `max_rows`. */
  readonly defaultRowLimit?: number;
}

const lower = (s: string) => s.toLowerCase();

/**
 * An in-memory GovernanceCatalog with role inheritance resolved: a role sees what it or any
 * ancestor is granted, and is bound by the row filters of itself and every ancestor (ANDed:
 * an inherited filter can only narrow, which fails safe).
 */
export function createCatalog(spec: CatalogSpec): GovernanceCatalog {
  const byName = new Map<string, TableSpec[]>();
  const byKey = new Map<string, TableSpec>();
  for (const t of spec.tables) {
    byKey.set(lower(t.tableKey), t);
    const forms = [t.tableKey.split('.'), ...t.names];
    const seen = new Set<string>();
    for (const f of forms) {
      const k = f.map(lower).join('\u0000');
      if (seen.has(k)) continue;
      seen.add(k);
      byName.set(k, [...(byName.get(k) ?? []), t]);
      // a bare table name resolves when it is unique across the catalog
      const bare = lower(f[f.length - 1] ?? '');
      if (f.length > 1 && !seen.has(bare)) {
        seen.add(bare);
        byName.set(bare, [...(byName.get(bare) ?? []), t]);
      }
    }
  }
  const roles = new Map(spec.roles.map((r) => [r.id, r]));
  const lineage = (roleId: string): RoleSpec[] => {
    const out: RoleSpec[] = [];
    for (let r = roles.get(roleId); r && !out.includes(r); r = r.parent ? roles.get(r.parent) : undefined) out.push(r);
    return out;
  };
  const ids = (roleId: string) => new Set(lineage(roleId).map((r) => r.id));
  const column = (tableKey: string, name: string) =>
    byKey.get(lower(tableKey))?.columns.find((c) => lower(c.name) === lower(name));

  return {
    resolveTable(parts) {
      return (byName.get(parts.map(lower).join('\u0000')) ?? []).map(({ names: _n, ...t }) => ({
        ...t,
        columns: t.columns.map((c) => ({ name: c.name, ...(c.type ? { type: c.type } : {}) })),
      }));
    },
    tableKeys() {
      return spec.tables.map((t) => t.tableKey);
    },
    role(roleId): CatalogRole | undefined {
      const chain = lineage(roleId);
      if (!chain.length) return undefined;
      const caps = chain.map((r) => r.maxRows).filter((x): x is number => x !== undefined);
      const full = chain.some((r) => r.fullResults);
      const cap = caps.length ? Math.min(...caps) : full ? undefined : spec.defaultRowLimit;
      return { id: roleId, ...(cap !== undefined ? { rowCap: cap } : {}) };
    },
    canAccess(roleId, tableKey) {
      const t = byKey.get(lower(tableKey));
      if (!t) return false;
      return lineage(roleId).some((r) => !r.domainAccess || r.domainAccess.includes('*') || r.domainAccess.map(lower).includes(lower(t.domain)));
    },
    visibleColumns(roleId, tableKey) {
      const mine = ids(roleId);
      return (byKey.get(lower(tableKey))?.columns ?? [])
        .filter((c) => !c.visibleTo || c.visibleTo.some((r) => mine.has(r)))
        .map((c) => c.name);
    },
    mask(roleId, tableKey, name) {
      const c = column(tableKey, name);
      if (!c?.mask) return undefined;
      const mine = ids(roleId);
      return c.unmaskedTo?.some((r) => mine.has(r)) ? undefined : c.mask;
    },
    rowFilters(roleId, tableKey) {
      const mine = ids(roleId);
      return spec.rls.filter((r) => lower(r.tableKey) === lower(tableKey) && mine.has(r.roleId)).map((r) => r.filter);
    },
  };
}
