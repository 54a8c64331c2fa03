/**
 * shoal's normalised, immutable catalog model: what the YAML loader produces, what the control-plane
 * registry stores and reads back (`snapshot()`), and what the engine catalog and the SQL pipeline are
 * derived from. Field names follow upstream provisa's YAML (snake_case) so a config key, a registry
 * column and a model field read the same.
 *
 * Conventions (federation-fleet.md §7):
 * - A table's id (`tableId`) is its alias, or its table name when it has no alias. It is unique across
 *   the catalog; `rls_rules[].table_id` and `relationships[].{source,target}_table_id` hold table ids
 *   (the loader resolves a qualified name `<domain>.<id>` to the id).
 * - A table is queryable as `qualifiedName(t)` = `<domain>.<alias ?? table>` and as
 *   `physicalName(t)` = `<source id with - as _>.<schema>.<table>` (the form upstream's view_sql uses).
 * - `SourceConfig.password` is never a plain-text secret: it is an unresolved `${env:VAR}` reference,
 *   resolved only when connecting (see `resolveSecret` in ./secret.ts).
 * - Every value is deeply frozen by the `make*` constructors; nothing mutates a model value.
 */
import { ShoalError } from '../errors.js';
import { DEFAULT_AUDIT, type AuditConfig } from './audit-config.js';
import type { AuthConfig } from './auth-config.js';
import type { LimitsConfig } from './limits.js';
import type { ServerConfig } from './server-config.js';

// ---------------------------------------------------------------------------------------------
// Enumerations

export const SOURCE_TYPES = ['postgresql', 'mysql', 'mariadb', 'sqlite', 'csv', 'parquet', 'json', 'tik'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export const MASK_TYPES = ['regex', 'constant', 'truncate'] as const;
export type MaskType = (typeof MASK_TYPES)[number];

/** DATE_TRUNC precisions accepted by `mask_type: truncate`. */
export const TRUNCATE_PRECISIONS = ['year', 'quarter', 'month', 'week', 'day', 'hour', 'minute', 'second'] as const;
export type TruncatePrecision = (typeof TRUNCATE_PRECISIONS)[number];

export const MV_CONSISTENCIES = ['shared', 'distributed'] as const;
export type MvConsistency = (typeof MV_CONSISTENCIES)[number];

export const CARDINALITIES = ['many-to-one', 'one-to-many'] as const;
export type Cardinality = (typeof CARDINALITIES)[number];

export const CAPABILITIES = [
  'source_registration',
  'table_registration',
  'relationship_registration',
  'security_config',
  'query_development',
  'full_results',
  'admin',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

export const FEDERATION_ENGINES = ['duckdb', 'trino'] as const;

/**
 * Who owns the governed catalog (`control_plane.catalog`). `config`: the config file is
 * authoritative — `shoal registry apply` (and `shoal serve` at start) makes the registry exactly the
 * file, and the admin API refuses catalog mutations. `registry`: the admin API owns it — the file's
 * catalog only seeds a registry that was never written.
 */
export const CATALOG_OWNERS = ['config', 'registry'] as const;
export type CatalogOwner = (typeof CATALOG_OWNERS)[number];
export type FederationEngineName = (typeof FEDERATION_ENGINES)[number];

/** `source_id` of a governed view (a table defined by `view_sql` rather than by a source). */
export const DERIVED_SOURCE_ID = '__derived__';

// ---------------------------------------------------------------------------------------------
// Entities

/** A data source. Connection fields are optional because each type needs a different subset. */
export interface SourceConfig {
  /** `[A-Za-z0-9_-]+`. */
  readonly id: string;
  readonly type: SourceType;
  readonly host?: string;
  /** 0 or absent = the connector's default port. */
  readonly port?: number;
  readonly database?: string;
  readonly username?: string;
  /** Always an unresolved `${env:VAR}` reference (never a plain-text secret); resolve at connect time. */
  readonly password?: string;
  /** File sources (csv, parquet, json, sqlite) and tik stores: a path or a glob. */
  readonly path?: string;
  readonly base_url?: string;
  readonly pool_min?: number;
  readonly pool_max?: number;
  /** DuckDB connector option: ATTACH the database through a DuckDB scanner extension instead of landing rows. */
  readonly attach?: boolean;
  /** Seconds; the source-level cache TTL (table > source > cache.default_ttl). */
  readonly cache_ttl?: number;
  readonly description?: string;
}

export interface DomainConfig {
  readonly id: string;
  readonly description?: string;
}

export interface ColumnConfig {
  readonly name: string;
  readonly data_type?: string;
  /** Roles that may see the column. Absent = every role; `[]` = no role. */
  readonly visible_to?: readonly string[];
  /** Roles that see the raw value of a masked column (the mask applies to everyone else). */
  readonly unmasked_to: readonly string[];
  readonly mask_type?: MaskType;
  /** regex: the pattern (POSIX/RE2 style, as REGEXP_REPLACE takes it). */
  readonly mask_pattern?: string;
  /** regex: the replacement, with `$1`-style group references as upstream writes them. */
  readonly mask_replace?: string;
  /** constant: the literal that replaces the value (`null` = SQL NULL). */
  readonly mask_value?: string | number | boolean | null;
  /** truncate: the DATE_TRUNC precision. */
  readonly mask_precision?: TruncatePrecision;
  readonly alias?: string;
  readonly description?: string;
  readonly is_primary_key?: boolean;
}

export interface TableConfig {
  /** A source id, or `DERIVED_SOURCE_ID` for a view defined by `view_sql`. */
  readonly source_id: string;
  readonly domain_id: string;
  /** Defaults to `"default"`. */
  readonly schema: string;
  readonly table: string;
  readonly alias?: string;
  readonly description?: string;
  readonly columns: readonly ColumnConfig[];
  /** true = load into the hot cache at start; false = never; absent = automatic. */
  readonly hot?: boolean;
  readonly watermark_column?: string;
  readonly cache_ttl?: number;
  /** Governed view text in the physical three-part form (`"sales_pg"."public"."orders"`). */
  readonly view_sql?: string;
  readonly materialize: boolean;
  /** Seconds; default 300. */
  readonly mv_refresh_interval: number;
  /** Default `shared`. */
  readonly mv_consistency: MvConsistency;
  /**
   * A view_sql table is computed with the service identity (every row, unmasked). When it reads a
   * table with RLS rules or masks it must declare RLS for every role that may read it, unless this
   * says, explicitly, that every reader gets the definer's rows (see checkCatalog).
   */
  readonly definer_rows?: boolean;
}

export interface RelationshipConfig {
  readonly id: string;
  /** Table ids (see `tableId`). */
  readonly source_table_id: string;
  readonly target_table_id: string;
  readonly source_column: string;
  readonly target_column: string;
  readonly cardinality: Cardinality;
  readonly materialize: boolean;
  /** Seconds; default 300. */
  readonly refresh_interval: number;
  readonly alias?: string;
  readonly graphql_alias?: string;
}

export interface RoleConfig {
  readonly id: string;
  readonly capabilities: readonly Capability[];
  /** Domain ids, or `'*'` for every domain. */
  readonly domain_access: readonly string[];
  /** Upstream's name for the parent role; resolve inheritance with `resolveRole` (./roles.ts). */
  readonly parent_role_id?: string;
  readonly max_rows?: number;
}

/** A row-level-security rule: exactly one of `table_id` / `domain_id`. A table rule overrides a domain rule. */
export interface RlsRuleConfig {
  readonly table_id?: string;
  readonly domain_id?: string;
  readonly role_id: string;
  /** A PostgreSQL-flavoured predicate, e.g. `region = current_setting('provisa.user_region')`. */
  readonly filter: string;
}

// ---------------------------------------------------------------------------------------------
// Stateful components (ARCHITECTURE.md S2): each reached through a connection in the config.

export interface ControlPlaneConfig {
  /** Who owns the catalog (default `config`); see CATALOG_OWNERS. */
  readonly catalog: CatalogOwner;
  /** Registry URL: `sqlite:///relative.db`, `sqlite:////absolute/path.db`, `postgresql://…`. */
  readonly tenant_url?: string;
  readonly platform_url?: string;
  readonly org_id?: string;
  readonly pool_min: number;
  readonly pool_max: number;
}

export interface CacheConfig {
  readonly enabled: boolean;
  /** Absent = a per-instance in-process cache. */
  readonly redis_url?: string;
  /** Seconds. */
  readonly default_ttl: number;
}

export interface HotTablesConfig {
  readonly auto_threshold: number;
  /** Seconds. */
  readonly refresh_interval: number;
  /**
   * Seconds: a hot copy of a table with a change signal is served only while its stamp was found
   * to match the source at most this long ago (cache/hot-signal.ts).
   */
  readonly revalidate_interval: number;
  readonly max_rows: number;
  readonly max_bytes: number;
}

export interface StatefulConfig {
  readonly control_plane: ControlPlaneConfig;
  /** `file:///dir`, a directory path, or `postgresql://…`; absent = the embedded default. */
  readonly materialize_store_url?: string;
  readonly cache: CacheConfig;
  readonly hot_tables: HotTablesConfig;
  readonly federation_engine: FederationEngineName;
  readonly federation_engine_url?: string;
  /** `federation_engine: trino`: a directory every Trino node sees at the same path (Parquet of file and landed sources). */
  readonly federation_engine_scratch_dir?: string;
  /** `server:`: TLS, Host allow-list, CORS (server-config.ts). */
  readonly server: ServerConfig;
  /** `audit:`: the audit log's queue bounds (audit-config.ts). */
  readonly audit: AuditConfig;
}

/** The governed catalog: what the registry holds and the engine catalog derives from. */
export interface CatalogModel {
  readonly sources: readonly SourceConfig[];
  readonly domains: readonly DomainConfig[];
  readonly tables: readonly TableConfig[];
  readonly relationships: readonly RelationshipConfig[];
  readonly roles: readonly RoleConfig[];
  readonly rls_rules: readonly RlsRuleConfig[];
}

/**
 * What the admin API may reach when it registers a source (`admin:` in the config). Unset lists
 * mean nothing: the admin API then registers no file source and no network source at all.
 */
export interface AdminConfig {
  /** Directories (absolute, or relative to the config file) admin-registered file sources may read under. */
  readonly file_roots: readonly string[];
  /** `host` or `host:port` entries admin-registered database sources may connect to. */
  readonly allowed_hosts: readonly string[];
}

/** A whole loaded config file: the catalog plus the stateful components. */
export interface ShoalConfig extends CatalogModel {
  readonly stateful: StatefulConfig;
  /** Authentication and identity (./auth-config.ts); absent = `DEFAULT_AUTH` (authentication required). */
  readonly auth?: AuthConfig;
  /** The admin API's reach (absent = it may register no file or network source). */
  readonly admin?: AdminConfig;
  /** `server.limits`: what no role can exceed (./limits.ts); absent = `DEFAULT_LIMITS`. */
  readonly limits?: LimitsConfig;
}

// ---------------------------------------------------------------------------------------------
// Defaults

export const DEFAULT_SCHEMA = 'default';
export const DEFAULT_MV_REFRESH_INTERVAL = 300;
export const DEFAULT_RELATIONSHIP_REFRESH_INTERVAL = 300;

export const DEFAULT_STATEFUL: StatefulConfig = deepFreeze({
  control_plane: { catalog: 'config', pool_min: 2, pool_max: 10 },
  cache: { enabled: true, default_ttl: 300 },
  hot_tables: { auto_threshold: 1000, refresh_interval: 300, revalidate_interval: 1, max_rows: 1000, max_bytes: 10_485_760 },
  federation_engine: 'duckdb',
  server: {},
  audit: DEFAULT_AUDIT,
});

export const EMPTY_CATALOG: CatalogModel = deepFreeze({
  sources: [],
  domains: [],
  tables: [],
  relationships: [],
  roles: [],
  rls_rules: [],
});

// ---------------------------------------------------------------------------------------------
// Naming

/** The id other entries use to reference a table: its alias, else its table name. */
export function tableId(table: Pick<TableConfig, 'alias' | 'table'>): string {
  return table.alias ?? table.table;
}

/** `<domain>.<alias ?? table>`: how users query a registered table. */
export function qualifiedName(table: Pick<TableConfig, 'domain_id' | 'alias' | 'table'>): string {
  return `${table.domain_id}.${tableId(table)}`;
}

/** The catalog name a source gets in the engine: its id with `-` replaced by `_`. */
export function catalogName(sourceId: string): string {
  return sourceId.replace(/-/g, '_');
}

/** `<source id with - as _>.<schema>.<table>`: the physical three-part name view_sql uses. */
export function physicalName(table: Pick<TableConfig, 'source_id' | 'schema' | 'table'>): string {
  return `${catalogName(table.source_id)}.${table.schema}.${table.table}`;
}

/**
 * Find a table by a reference as config entries write it: its id (alias or name), its qualified
 * name, or its physical name. Returns undefined when nothing matches.
 */
export function findTable(catalog: Pick<CatalogModel, 'tables'>, ref: string): TableConfig | undefined {
  return (
    catalog.tables.find((t) => tableId(t) === ref) ??
    catalog.tables.find((t) => qualifiedName(t) === ref) ??
    catalog.tables.find((t) => physicalName(t) === ref) ??
    catalog.tables.find((t) => t.table === ref)
  );
}

/** The RLS filters for a table and a role: table rules win over domain rules (upstream). */
export function rlsFiltersFor(catalog: Pick<CatalogModel, 'rls_rules'>, table: TableConfig, roleId: string): readonly string[] {
  const id = tableId(table);
  const forTable = catalog.rls_rules.filter((r) => r.role_id === roleId && r.table_id === id).map((r) => r.filter);
  if (forTable.length > 0) return forTable;
  return catalog.rls_rules.filter((r) => r.role_id === roleId && r.domain_id === table.domain_id).map((r) => r.filter);
}

// ---------------------------------------------------------------------------------------------
// Constructors: apply defaults and freeze. Use these when building model values in code.

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type WithDefaults<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

export function makeSource(s: SourceConfig): SourceConfig {
  return deepFreeze(dropUndefined({ ...s }));
}

export function makeDomain(d: DomainConfig): DomainConfig {
  return deepFreeze(dropUndefined({ ...d }));
}

export function makeColumn(c: WithDefaults<ColumnConfig, 'unmasked_to'>): ColumnConfig {
  return deepFreeze(dropUndefined({ ...c, unmasked_to: c.unmasked_to ?? [] }));
}

export function makeTable(
  t: Omit<WithDefaults<TableConfig, 'schema' | 'materialize' | 'mv_refresh_interval' | 'mv_consistency'>, 'columns'> & {
    readonly columns?: readonly WithDefaults<ColumnConfig, 'unmasked_to'>[];
  },
): TableConfig {
  return deepFreeze(
    dropUndefined({
      ...t,
      schema: t.schema ?? DEFAULT_SCHEMA,
      columns: (t.columns ?? []).map(makeColumn),
      materialize: t.materialize ?? false,
      mv_refresh_interval: t.mv_refresh_interval ?? DEFAULT_MV_REFRESH_INTERVAL,
      mv_consistency: t.mv_consistency ?? 'shared',
    }),
  );
}

export function makeRelationship(r: WithDefaults<RelationshipConfig, 'materialize' | 'refresh_interval'>): RelationshipConfig {
  return deepFreeze(
    dropUndefined({
      ...r,
      materialize: r.materialize ?? false,
      refresh_interval: r.refresh_interval ?? DEFAULT_RELATIONSHIP_REFRESH_INTERVAL,
    }),
  );
}

export function makeRole(r: WithDefaults<RoleConfig, 'capabilities' | 'domain_access'>): RoleConfig {
  return deepFreeze(dropUndefined({ ...r, capabilities: r.capabilities ?? [], domain_access: r.domain_access ?? [] }));
}

export function makeRlsRule(r: RlsRuleConfig): RlsRuleConfig {
  if ((r.table_id === undefined) === (r.domain_id === undefined)) {
    throw new ShoalError('CONFIG_INVALID', `rls rule for role ${r.role_id} must name exactly one of table_id or domain_id`, {
      hint: 'set table_id to a table name/alias, or domain_id to a domain',
    });
  }
  return deepFreeze(dropUndefined({ ...r }));
}

export function makeCatalog(c: Partial<CatalogModel>): CatalogModel {
  return deepFreeze({
    sources: (c.sources ?? []).map(makeSource),
    domains: (c.domains ?? []).map(makeDomain),
    tables: (c.tables ?? []).map((t) => makeTable(t)),
    relationships: (c.relationships ?? []).map(makeRelationship),
    roles: (c.roles ?? []).map(makeRole),
    rls_rules: (c.rls_rules ?? []).map(makeRlsRule),
  });
}

/** The catalog part of a config (drops the stateful components). */
export function catalogOf(config: CatalogModel): CatalogModel {
  const { sources, domains, tables, relationships, roles, rls_rules } = config;
  return deepFreeze({ sources, domains, tables, relationships, roles, rls_rules });
}

// ---------------------------------------------------------------------------------------------
// Internals shared by the loader and the registry.

/** Freeze a plain value and everything reachable from it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value as object)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** Remove keys whose value is undefined, so equal models compare equal as JSON. */
export function dropUndefined<T extends object>(value: T): T {
  const out = {} as Mutable<T>;
  for (const [k, v] of Object.entries(value)) {
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}
