import { type CatalogModel, type ColumnConfig, type TableConfig, catalogName, qualifiedName, rlsFiltersFor, tableId } from '../config/model.js';
import type { ColumnMask, GovernanceCatalog } from './catalog.js';
import { type ColumnSpec, type RlsSpec, type TableSpec, createCatalog } from './static-catalog.js';

/** Upstream's PROVISA_DEFAULT_ROW_LIMIT default (its docs say 100; its code says 10000). */
export const DEFAULT_ROW_LIMIT = 10_000;

export interface CatalogOptions {
  /** The relation the engine exposes for a table; default its physical three parts (upstream's exposure). */
  readonly engineName?: (table: TableConfig) => readonly string[];
  /** Row cap for roles without `full_results` and without `max_rows`; default 10000 (upstream's code). */
  readonly defaultRowLimit?: number;
}

function maskOf(c: ColumnConfig): ColumnMask | undefined {
  switch (c.mask_type) {
    case 'regex': return { kind: 'regex', pattern: c.mask_pattern ?? '', replace: c.mask_replace ?? '' };
    case 'constant': return { kind: 'constant', value: c.mask_value === null || c.mask_value === undefined ? null : String(c.mask_value) };
    case 'truncate': return { kind: 'truncate', precision: c.mask_precision ?? 'day' };
    default: return undefined;
  }
}

function sourceSchema(t: TableConfig, sourceType: string | undefined, database: string | undefined): string | undefined {
  if (sourceType === 'sqlite') return t.schema === 'default' || t.schema === 'main' ? undefined : t.schema;
  if (t.schema !== 'default') return t.schema;
  if (sourceType === 'postgresql') return 'public';
  if (sourceType === 'mysql' || sourceType === 'mariadb') return database;
  return undefined;
}

/**
 * The GovernanceCatalog of a loaded config: tables answer to `<domain>.<alias ?? table>`, to
 * their physical `<source_catalog>.<schema>.<table>` and, when unique, to their bare name.
 * Row filters follow upstream (a table rule overrides a domain rule) per role, and a role is
 * bound by its own filters and its ancestors' (ANDed).
 */
export function catalogFromConfig(config: CatalogModel, options: CatalogOptions = {}): GovernanceCatalog {
  const sources = new Map(config.sources.map((s) => [s.id, s]));
  const tables: TableSpec[] = config.tables.map((t) => {
    const src = sources.get(t.source_id);
    const schema = sourceSchema(t, src?.type, src?.database);
    return {
      tableKey: qualifiedName(t).toLowerCase(),
      domain: t.domain_id,
      source: { id: t.source_id, type: src?.type ?? 'derived' },
      columns: t.columns.map((c): ColumnSpec => {
        const mask = maskOf(c);
        return {
          name: c.name,
          ...(c.data_type ? { type: c.data_type.toLowerCase() } : {}),
          ...(c.visible_to ? { visibleTo: c.visible_to } : {}),
          unmaskedTo: c.unmasked_to,
          ...(mask ? { mask } : {}),
        };
      }),
      engineName: options.engineName ? options.engineName(t) : [catalogName(t.source_id), t.schema, t.table],
      sourceName: { ...(schema ? { schema } : {}), table: t.table },
      names: [[catalogName(t.source_id), t.schema, t.table], [t.domain_id, tableId(t)]],
    };
  });
  const rls: RlsSpec[] = [];
  for (const t of config.tables) {
    for (const r of config.roles) {
      for (const filter of rlsFiltersFor(config, t, r.id)) rls.push({ tableKey: qualifiedName(t).toLowerCase(), roleId: r.id, filter });
    }
  }
  return createCatalog({
    tables,
    roles: config.roles.map((r) => ({
      id: r.id,
      ...(r.parent_role_id ? { parent: r.parent_role_id } : {}),
      ...(r.max_rows !== undefined ? { maxRows: r.max_rows } : {}),
      fullResults: r.capabilities.includes('full_results') || r.capabilities.includes('admin'),
      domainAccess: r.domain_access,
    })),
    rls,
    defaultRowLimit: options.defaultRowLimit ?? DEFAULT_ROW_LIMIT,
  });
}
