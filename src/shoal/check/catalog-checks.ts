/**
 * Whole-catalog consistency checks, shared by the config loader and the registry (every registry
 * mutation checks the catalog it would produce): duplicate ids, table → source/domain, RLS →
 * table/domain/role, relationship endpoints, role inheritance, masking combinations. Issue paths use
 * the catalog's list indices (`tables[2].columns[0].mask_type`), which match the YAML's.
 */
import { checkMaskReplacement, parseMaskPattern } from '../sql/mask-regex.js';
import { derivedCycle, planDerivedTables } from '../mv/derived-graph.js';
import { isDerivedTable } from '../mv/mv-relation.js';
import { admitMaterializedView } from '../sql/determinism.js';
import { child, item, type ConfigIssue } from '../config/config-issue.js';
import { didYouMean } from '../config/did-you-mean.js';
import { canAccessDomain, resolveRole } from '../config/roles.js';
import {
  DERIVED_SOURCE_ID,
  catalogName,
  deepFreeze,
  physicalName,
  qualifiedName,
  rlsFiltersFor,
  tableId,
  type CatalogModel,
  type ColumnConfig,
  type RelationshipConfig,
  type RlsRuleConfig,
  type SourceType,
  type TableConfig,
} from '../config/model.js';

export interface CatalogCheck {
  readonly errors: readonly ConfigIssue[];
  readonly warnings: readonly ConfigIssue[];
}

const FILE_SOURCES: ReadonlySet<SourceType> = new Set(['sqlite', 'csv', 'parquet', 'json', 'tik']);
const SERVER_SOURCES: ReadonlySet<SourceType> = new Set(['postgresql', 'mysql', 'mariadb']);
const STRING_TYPE = /^\s*(varchar|text|string|char|character|character varying|nvarchar|nchar|bpchar|citext|uuid|json|jsonb)\s*(\(.*\))?\s*$/i;
const TEMPORAL_TYPE = /^\s*(date|datetime|timestamp|timestamptz|timestamp\s+with(out)?\s+time\s+zone)\s*(\(.*\))?\s*$/i;

/**
 * Rewrite table references in RLS rules and relationships to canonical table ids. A reference may be
 * a table id (alias or name), a qualified name `<domain>.<id>`, a physical name, or a bare table name
 * of an aliased table. Unresolvable or ambiguous references are reported and left as written.
 */
export function resolveTableReferences(catalog: CatalogModel): { catalog: CatalogModel; errors: readonly ConfigIssue[] } {
  const errors: ConfigIssue[] = [];
  const resolve = (ref: string, path: string): string => {
    const byId = catalog.tables.filter((t) => tableId(t) === ref);
    if (byId.length === 1) return ref;
    const candidates = byId.length > 1 ? byId : [
      ...catalog.tables.filter((t) => qualifiedName(t) === ref),
      ...catalog.tables.filter((t) => t.source_id !== DERIVED_SOURCE_ID && physicalName(t) === ref),
      ...catalog.tables.filter((t) => t.table === ref),
    ];
    const distinct = [...new Set(candidates)];
    if (distinct.length === 1) return tableId(distinct[0]!);
    if (distinct.length > 1) {
      errors.push({
        code: 'CONFIG_AMBIGUOUS_TABLE',
        path,
        message: `table reference "${ref}" is ambiguous: ${distinct.map(qualifiedName).join(', ')}`,
        hint: 'reference the table by its alias or by <domain>.<table>',
      });
      return ref;
    }
    const suggestion = didYouMean(ref, catalog.tables.map(tableId));
    errors.push({
      code: 'CONFIG_UNKNOWN_TABLE',
      path,
      message: `unknown table "${ref}"`,
      hint: suggestion ? `did you mean "${suggestion}"?` : 'declare the table under tables: (reference it by alias or table name)',
    });
    return ref;
  };
  const rls_rules = catalog.rls_rules.map((r, i): RlsRuleConfig =>
    r.table_id === undefined ? r : { ...r, table_id: resolve(r.table_id, child(item('rls_rules', i), 'table_id')) },
  );
  const relationships = catalog.relationships.map((r, i): RelationshipConfig => ({
    ...r,
    source_table_id: resolve(r.source_table_id, child(item('relationships', i), 'source_table_id')),
    target_table_id: resolve(r.target_table_id, child(item('relationships', i), 'target_table_id')),
  }));
  return { catalog: deepFreeze({ ...catalog, rls_rules, relationships }), errors };
}

/** Check a catalog whose table references are canonical (see resolveTableReferences). */
export function checkCatalog(catalog: CatalogModel): CatalogCheck {
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const err = (code: string, path: string, message: string, hint?: string) =>
    errors.push({ code, path, message, ...(hint === undefined ? {} : { hint }) });
  const warn = (code: string, path: string, message: string, hint?: string) =>
    warnings.push({ code, path, message, ...(hint === undefined ? {} : { hint }) });

  const duplicates = (list: string, keys: readonly string[], key: string, what: string) => {
    const seen = new Map<string, number>();
    keys.forEach((k, i) => {
      const first = seen.get(k);
      if (first === undefined) seen.set(k, i);
      else err('CONFIG_DUPLICATE_ID', child(item(list, i), key), `duplicate ${what} "${k}" (first at ${item(list, first)})`, `give each ${what} a unique value`);
    });
  };

  const sourceIds = new Set(catalog.sources.map((s) => s.id));
  const domainIds = new Set(catalog.domains.map((d) => d.id));
  const roleIds = new Set(catalog.roles.map((r) => r.id));
  const tablesById = new Map(catalog.tables.map((t) => [tableId(t), t]));

  duplicates('sources', catalog.sources.map((s) => s.id), 'id', 'source id');
  duplicates('sources', catalog.sources.map((s) => catalogName(s.id)), 'id', 'engine catalog name (source id with - as _)');
  duplicates('domains', catalog.domains.map((d) => d.id), 'id', 'domain id');
  {
    const seen = new Map<string, number>();
    catalog.tables.forEach((t, i) => {
      const id = tableId(t);
      const first = seen.get(id);
      if (first === undefined) seen.set(id, i);
      else err('CONFIG_DUPLICATE_ID', child(item('tables', i), t.alias === undefined ? 'table' : 'alias'), `duplicate table id "${id}" (first at ${item('tables', first)})`, 'tables are referenced by alias or name, so give one of them an alias');
    });
  }
  duplicates('relationships', catalog.relationships.map((r) => r.id), 'id', 'relationship id');
  duplicates('roles', catalog.roles.map((r) => r.id), 'id', 'role id');
  duplicates('rls_rules', catalog.rls_rules.map((r) => `${r.table_id ?? `domain ${r.domain_id}`} / role ${r.role_id}`), 'role_id', 'RLS rule for');
  {
    const seen = new Map<string, number>();
    catalog.tables.forEach((t, i) => {
      if (t.source_id === DERIVED_SOURCE_ID) return;
      const p = physicalName(t);
      const first = seen.get(p);
      if (first === undefined) seen.set(p, i);
      else err('CONFIG_DUPLICATE_ID', child(item('tables', i), 'table'), `table ${p} is registered twice (first at ${item('tables', first)})`, 'register each physical table once; use a view for a second shape');
    });
  }

  // MV admission (S4), on every registration path that validates a catalog (config load, the
  // registry's mutations, the admin API): a distributed MV must be deterministic; unparseable
  // view_sql is admitted by no tier (fail closed); a shared one is admitted with a warning.
  catalog.tables.forEach((t, i) => {
    if (!t.materialize || !t.view_sql) return;
    const at = child(item('tables', i), 'view_sql');
    const a = admitMaterializedView(t.mv_consistency, t.view_sql);
    if (!a.ok) err('CONFIG_MV_REJECTED', at, a.reason, "make view_sql deterministic, or use mv_consistency: shared");
    else if (!a.deterministic) warn('CONFIG_MV_NONDETERMINISTIC', at, a.reason);
  });
  checkDerivedReads(catalog, err);
  checkDefinerRows(catalog, err);

  catalog.sources.forEach((s, i) => {
    const at = item('sources', i);
    if (FILE_SOURCES.has(s.type) && !s.path) err('CONFIG_MISSING_FIELD', child(at, 'path'), `a ${s.type} source needs a path`, 'set path: to the file (or directory / store root)');
    if (SERVER_SOURCES.has(s.type) && !s.host) err('CONFIG_MISSING_FIELD', child(at, 'host'), `a ${s.type} source needs a host`, 'set host: (it may be an ${env:VAR} reference)');
    if (FILE_SOURCES.has(s.type) && s.type !== 'sqlite' && s.password !== undefined) warn('CONFIG_IGNORED', child(at, 'password'), `a ${s.type} source has no password; it is ignored`);
    if (s.attach && !SERVER_SOURCES.has(s.type) && s.type !== 'sqlite') warn('CONFIG_IGNORED', child(at, 'attach'), `attach applies to database sources, not ${s.type}; it is ignored`);
    if (s.pool_min !== undefined && s.pool_max !== undefined && s.pool_min > s.pool_max) err('CONFIG_RANGE', child(at, 'pool_min'), `pool_min ${s.pool_min} is greater than pool_max ${s.pool_max}`);
  });

  catalog.tables.forEach((t, i) => checkTable(t, item('tables', i)));

  function checkTable(t: TableConfig, at: string): void {
    if (t.source_id === DERIVED_SOURCE_ID) {
      if (!t.view_sql) err('CONFIG_MISSING_FIELD', child(at, 'view_sql'), `a ${DERIVED_SOURCE_ID} table needs view_sql`);
    } else if (!sourceIds.has(t.source_id)) {
      const s = didYouMean(t.source_id, sourceIds);
      err('CONFIG_UNKNOWN_SOURCE', child(at, 'source_id'), `unknown source "${t.source_id}"`, s ? `did you mean "${s}"?` : 'declare it under sources:');
    }
    if (t.view_sql && t.source_id !== DERIVED_SOURCE_ID) err('CONFIG_INVALID_COMBINATION', child(at, 'view_sql'), `view_sql needs source_id: ${DERIVED_SOURCE_ID}`);
    if (t.materialize && !t.view_sql) err('CONFIG_INVALID_COMBINATION', child(at, 'materialize'), 'materialize needs view_sql');
    if (!domainIds.has(t.domain_id)) {
      const s = didYouMean(t.domain_id, domainIds);
      err('CONFIG_UNKNOWN_DOMAIN', child(at, 'domain_id'), `unknown domain "${t.domain_id}"`, s ? `did you mean "${s}"?` : 'declare it under domains:');
    }
    // watermark_column may name a physical column the table does not expose, so it is not checked here
    const seen = new Map<string, number>();
    t.columns.forEach((c, j) => {
      const cat = item(child(at, 'columns'), j);
      const first = seen.get(c.name);
      if (first !== undefined) err('CONFIG_DUPLICATE_ID', child(cat, 'name'), `duplicate column "${c.name}" (first at columns[${first}])`);
      else seen.set(c.name, j);
      checkColumn(c, cat);
    });
  }

  function checkColumn(c: ColumnConfig, at: string): void {
    for (const key of ['visible_to', 'unmasked_to'] as const) {
      (c[key] ?? []).forEach((r, k) => {
        if (!roleIds.has(r)) {
          const s = didYouMean(r, roleIds);
          warn('CONFIG_UNKNOWN_ROLE', item(child(at, key), k), `unknown role "${r}"`, s ? `did you mean "${s}"?` : 'no declared role has this id, so it grants nothing');
        }
      });
    }
    const type = c.data_type;
    switch (c.mask_type) {
      case undefined:
        for (const key of ['mask_pattern', 'mask_replace', 'mask_value', 'mask_precision'] as const) {
          if (c[key] !== undefined) err('CONFIG_INVALID_COMBINATION', child(at, key), `${key} needs a mask_type`, 'set mask_type: regex|constant|truncate');
        }
        if (c.unmasked_to.length > 0) warn('CONFIG_IGNORED', child(at, 'unmasked_to'), 'unmasked_to has no effect without a mask_type');
        break;
      case 'regex':
        if (c.mask_pattern === undefined) err('CONFIG_MISSING_FIELD', child(at, 'mask_pattern'), 'mask_type regex needs mask_pattern');
        if (c.mask_replace === undefined) err('CONFIG_MISSING_FIELD', child(at, 'mask_replace'), 'mask_type regex needs mask_replace', 'use $1-style group references, e.g. "$1***$2"');
        if (c.mask_pattern !== undefined) {
          // only the regex subset whose meaning agrees on every route (mask-regex.ts) is accepted
          const parsed = parseMaskPattern(c.mask_pattern);
          if (!parsed.ok) err('CONFIG_INVALID_REGEX', child(at, 'mask_pattern'), `mask_pattern is not in the certified regex subset: ${parsed.reason}`, parsed.hint);
          else if (c.mask_replace !== undefined) {
            const r = checkMaskReplacement(c.mask_replace, parsed.regex);
            if (!r.ok) err('CONFIG_INVALID_REGEX', child(at, 'mask_replace'), `mask_replace: ${r.reason}`, r.hint);
          }
        }
        if (type !== undefined && !STRING_TYPE.test(type)) err('CONFIG_INVALID_COMBINATION', child(at, 'mask_type'), `regex masking applies to string columns, not ${type}`, 'use constant masking for non-string columns');
        for (const key of ['mask_value', 'mask_precision'] as const) if (c[key] !== undefined) err('CONFIG_INVALID_COMBINATION', child(at, key), `${key} does not apply to mask_type regex`);
        break;
      case 'constant':
        if (c.mask_value === undefined) err('CONFIG_MISSING_FIELD', child(at, 'mask_value'), 'mask_type constant needs mask_value', 'give the literal that replaces the value (null for SQL NULL)');
        for (const key of ['mask_pattern', 'mask_replace', 'mask_precision'] as const) if (c[key] !== undefined) err('CONFIG_INVALID_COMBINATION', child(at, key), `${key} does not apply to mask_type constant`);
        break;
      case 'truncate':
        if (c.mask_precision === undefined) err('CONFIG_MISSING_FIELD', child(at, 'mask_precision'), 'mask_type truncate needs mask_precision', 'e.g. mask_precision: month');
        if (type !== undefined && !TEMPORAL_TYPE.test(type)) err('CONFIG_INVALID_COMBINATION', child(at, 'mask_type'), `truncate masking applies to date/timestamp columns, not ${type}`);
        for (const key of ['mask_pattern', 'mask_replace', 'mask_value'] as const) if (c[key] !== undefined) err('CONFIG_INVALID_COMBINATION', child(at, key), `${key} does not apply to mask_type truncate`);
        break;
    }
  }

  catalog.relationships.forEach((r, i) => {
    const at = item('relationships', i);
    for (const [tableKey, columnKey] of [['source_table_id', 'source_column'], ['target_table_id', 'target_column']] as const) {
      const t = tablesById.get(r[tableKey]);
      if (!t) {
        err('CONFIG_UNKNOWN_TABLE', child(at, tableKey), `unknown table "${r[tableKey]}"`);
        continue;
      }
      const names = t.columns.map((c) => c.name);
      if (names.length > 0 && !names.includes(r[columnKey])) {
        const s = didYouMean(r[columnKey], names);
        err('CONFIG_UNKNOWN_COLUMN', child(at, columnKey), `table ${tableId(t)} has no column "${r[columnKey]}"`, s ? `did you mean "${s}"?` : undefined);
      }
    }
  });

  catalog.roles.forEach((r, i) => {
    const at = item('roles', i);
    if (r.parent_role_id !== undefined) {
      if (!roleIds.has(r.parent_role_id)) {
        const s = didYouMean(r.parent_role_id, roleIds);
        err('CONFIG_UNKNOWN_ROLE', child(at, 'parent_role_id'), `unknown parent role "${r.parent_role_id}"`, s ? `did you mean "${s}"?` : undefined);
      } else {
        const chain = [r.id];
        let p: string | undefined = r.parent_role_id;
        while (p !== undefined && !chain.includes(p)) {
          chain.push(p);
          p = catalog.roles.find((x) => x.id === p)?.parent_role_id;
        }
        if (p === r.id) err('CONFIG_ROLE_CYCLE', child(at, 'parent_role_id'), `role inheritance cycle: ${[...chain, p].join(' -> ')}`, 'remove one parent_role_id so the chain ends');
      }
    }
    r.domain_access.forEach((d, k) => {
      if (d !== '*' && !domainIds.has(d)) {
        const s = didYouMean(d, domainIds);
        warn('CONFIG_UNKNOWN_DOMAIN', item(child(at, 'domain_access'), k), `unknown domain "${d}"`, s ? `did you mean "${s}"?` : undefined);
      }
    });
  });

  catalog.rls_rules.forEach((r, i) => {
    const at = item('rls_rules', i);
    if ((r.table_id === undefined) === (r.domain_id === undefined)) {
      err('CONFIG_INVALID_COMBINATION', at, 'an RLS rule needs exactly one of table_id or domain_id');
    } else if (r.table_id !== undefined && !tablesById.has(r.table_id)) {
      err('CONFIG_UNKNOWN_TABLE', child(at, 'table_id'), `unknown table "${r.table_id}"`);
    } else if (r.domain_id !== undefined && !domainIds.has(r.domain_id)) {
      const s = didYouMean(r.domain_id, domainIds);
      err('CONFIG_UNKNOWN_DOMAIN', child(at, 'domain_id'), `unknown domain "${r.domain_id}"`, s ? `did you mean "${s}"?` : undefined);
    }
    if (!roleIds.has(r.role_id)) {
      const s = didYouMean(r.role_id, roleIds);
      err('CONFIG_UNKNOWN_ROLE', child(at, 'role_id'), `unknown role "${r.role_id}"`, s ? `did you mean "${s}"?` : 'declare it under roles:');
    }
  });

  return { errors, warnings };
}

/**
 * Derived tables cannot launder rows. view_sql is computed with the service identity (every row,
 * unmasked: src/shoal/mv/service-identity.ts), so a view or MV over a table with RLS rules or
 * masks would hand every reader rows and values they cannot read directly. Such a derived table
 * must declare RLS of its own for each role that may read it and is restricted on one of those
 * tables (no domain access, a row filter, a mask), or say `definer_rows: true` — explicitly
 * serving every reader the definer's rows. A role that reads every one of those tables
 * unrestricted gains nothing through the view and needs no rule.
 */
function checkDefinerRows(catalog: CatalogModel, err: (code: string, path: string, message: string, hint?: string) => void): void {
  const derived = catalog.tables.flatMap((t, i) => (isDerivedTable(t) && t.definer_rows !== true ? [{ t, i }] : []));
  if (derived.length === 0) return;
  let planned: ReturnType<typeof planDerivedTables>;
  try {
    planned = planDerivedTables(catalog);
  } catch {
    return; // reported by the checks above
  }
  const byKey = new Map(catalog.tables.map((t) => [qualifiedName(t).toLowerCase(), t]));
  const resolve = (roleId: string): ReturnType<typeof resolveRole> | undefined => {
    try {
      return resolveRole(catalog.roles, roleId);
    } catch {
      return undefined; // unknown parents and cycles are reported with the roles
    }
  };
  const ruled = (t: TableConfig, lineage: readonly string[]): boolean => lineage.some((r) => rlsFiltersFor(catalog, t, r).length > 0);
  const hasRls = (t: TableConfig): boolean => catalog.rls_rules.some((r) => r.table_id === tableId(t) || r.domain_id === t.domain_id);
  const masked = (t: TableConfig): readonly ColumnConfig[] => t.columns.filter((c) => c.mask_type !== undefined);
  for (const { t, i } of derived) {
    const d = planned.get(qualifiedName(t).toLowerCase());
    if (!d || d.engineSql === null) continue; // an unplannable view serves nothing; its error is reported when read
    const governed = d.reads.map((k) => byKey.get(k)).filter((b): b is TableConfig => b !== undefined && (hasRls(b) || masked(b).length > 0));
    if (governed.length === 0) continue;
    const missing: string[] = [];
    for (const role of catalog.roles) {
      const resolved = resolve(role.id);
      if (!resolved) continue;
      const lineage = resolved.lineage;
      if (!canAccessDomain(resolved, t.domain_id)) continue; // cannot read the view at all
      const restricted = governed.some(
        (b) => !canAccessDomain(resolved, b.domain_id) || ruled(b, lineage) || masked(b).some((c) => !c.unmasked_to.some((r) => lineage.includes(r))),
      );
      if (restricted && !ruled(t, lineage)) missing.push(role.id);
    }
    if (missing.length === 0) continue;
    const what = governed.map((b) => `${qualifiedName(b)} (${[hasRls(b) ? 'RLS' : '', masked(b).length > 0 ? 'masks' : ''].filter(Boolean).join(', ')})`);
    err(
      'CONFIG_VIEW_LAUNDERS_ROWS',
      child(item('tables', i), 'view_sql'),
      `${qualifiedName(t)} is computed with every row and unmasked value of ${what.join(' and ')}, but declares no RLS of its own for the roles that read it: ${missing.join(', ')}`,
      `add an rls_rules entry with table_id: ${tableId(t)} for each of ${missing.join(', ')}, or set definer_rows: true on ${qualifiedName(t)} to serve every reader the definer's rows`,
    );
  }
}

/**
 * Derived tables that read derived tables (an MV over an MV or a view, a view over either): a
 * table that reads itself, directly or through others, is refused; so is a distributed MV that
 * computes a non-deterministic derived view inline (its copies would diverge as surely as if the
 * view's SQL were its own). An MV read by another is read through its snapshot, so it ends the walk.
 */
function checkDerivedReads(catalog: CatalogModel, err: (code: string, path: string, message: string, hint?: string) => void): void {
  const derived = catalog.tables.flatMap((t, i) => (isDerivedTable(t) ? [{ t, i }] : []));
  if (derived.length === 0) return;
  let planned: ReturnType<typeof planDerivedTables>;
  try {
    planned = planDerivedTables(catalog);
  } catch {
    return; // a catalog that does not even build a governance catalog is reported by the checks above
  }
  const edges = new Map([...planned].map(([k, d]) => [k, d.reads]));
  for (const { t, i } of derived) {
    const key = qualifiedName(t).toLowerCase();
    const at = child(item('tables', i), 'view_sql');
    const cycle = derivedCycle(edges, key);
    if (cycle) {
      err('CONFIG_DERIVED_CYCLE', at, `${qualifiedName(t)} reads itself: ${cycle.join(' -> ')}`, 'a view_sql may read other views and MVs, but never (through them) its own table');
      continue;
    }
    if (!t.materialize || t.mv_consistency !== 'distributed') continue;
    const seen = new Set<string>();
    const inline = [...(planned.get(key)?.reads ?? [])];
    while (inline.length > 0) {
      const d = planned.get(inline.pop()!);
      if (!d || d.materialized || seen.has(d.id)) continue;
      seen.add(d.id);
      const a = admitMaterializedView('distributed', d.table.view_sql);
      if (!a.ok) {
        err('CONFIG_MV_REJECTED', at, `a distributed MV computes the view ${d.id} inline, and ${a.reason}`, `make ${d.id} deterministic, materialize it as shared, or use mv_consistency: shared`);
        break;
      }
      inline.push(...d.reads);
    }
  }
}
