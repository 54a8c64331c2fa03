/**
 * The zod schemas of the YAML config (the provisa-compatible subset of federation-fleet.md §7), and,
 * per kind of object, the keys we support and the keys upstream's larger format has that we don't
 * (reported as "unsupported" warnings; anything else is a typo, reported as an error).
 */
import { z } from 'zod';
import {
  CAPABILITIES,
  CARDINALITIES,
  CATALOG_OWNERS,
  FEDERATION_ENGINES,
  MASK_TYPES,
  MV_CONSISTENCIES,
  SOURCE_TYPES,
  TRUNCATE_PRECISIONS,
} from './model.js';
import { AUDIT_KEYS, auditSchema } from './audit-config.js';
import { AUTH_PROVIDERS } from './auth-config.js';
import { SERVER_KEYS, serverSchema } from './server-config.js';

/** Numbers may arrive as strings after env interpolation (`port: ${env:PGPORT:-5432}`). */
const int = z.preprocess((v) => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v), z.number().int());
const nonNegInt = int.pipe(z.number().int().min(0));
const bool = z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean());
const str = z.string();
const name = z.string().min(1);
const names = z.array(name);
const optional = <T extends z.ZodType>(t: T) => t.nullish().transform((v) => v ?? undefined);

export const sourceSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]+$/, { message: 'expected an id of letters, digits, _ and -' }),
  type: z.enum(SOURCE_TYPES),
  host: optional(str),
  port: optional(nonNegInt),
  database: optional(str),
  username: optional(str),
  password: optional(str),
  path: optional(str),
  base_url: optional(str),
  pool_min: optional(nonNegInt),
  pool_max: optional(nonNegInt),
  attach: optional(bool),
  cache_ttl: optional(nonNegInt),
  description: optional(str),
});

export const domainSchema = z.object({ id: name, description: optional(str) });

export const columnSchema = z.object({
  name,
  data_type: optional(str),
  visible_to: optional(names),
  unmasked_to: optional(names),
  mask_type: optional(z.enum(MASK_TYPES)),
  mask_pattern: optional(str),
  mask_replace: optional(str),
  // null is meaningful here (mask to SQL NULL), so no nullish→undefined transform
  mask_value: z.union([z.string(), z.number(), z.boolean(), z.null()]).optional(),
  mask_precision: optional(z.enum(TRUNCATE_PRECISIONS)),
  alias: optional(name),
  description: optional(str),
  is_primary_key: optional(bool),
});

export const tableSchema = z.object({
  source_id: name,
  domain_id: name,
  schema: optional(name),
  table: name,
  alias: optional(name),
  description: optional(str),
  columns: optional(z.array(columnSchema)),
  hot: optional(bool),
  watermark_column: optional(name),
  cache_ttl: optional(nonNegInt),
  view_sql: optional(name),
  materialize: optional(bool),
  mv_refresh_interval: optional(int.pipe(z.number().int().min(1))),
  mv_consistency: optional(z.enum(MV_CONSISTENCIES)),
  definer_rows: optional(bool),
});

export const relationshipSchema = z.object({
  id: name,
  source_table_id: name,
  target_table_id: name,
  source_column: name,
  target_column: name,
  cardinality: z.enum(CARDINALITIES),
  materialize: optional(bool),
  refresh_interval: optional(int.pipe(z.number().int().min(1))),
  alias: optional(name),
  graphql_alias: optional(name),
});

export const roleSchema = z.object({
  id: name,
  capabilities: optional(z.array(z.enum(CAPABILITIES))),
  domain_access: optional(names),
  parent_role_id: optional(name),
  max_rows: optional(int.pipe(z.number().int().min(1))),
});

export const rlsRuleSchema = z.object({
  table_id: optional(name),
  domain_id: optional(name),
  role_id: name,
  filter: name,
});

export const controlPlaneSchema = z.object({
  catalog: optional(z.enum(CATALOG_OWNERS)),
  tenant_url: optional(name),
  platform_url: optional(name),
  org_id: optional(name),
  pool_min: optional(nonNegInt),
  pool_max: optional(nonNegInt),
});

export const cacheSchema = z.object({
  enabled: optional(bool),
  redis_url: optional(name),
  default_ttl: optional(nonNegInt),
});

export const hotTablesSchema = z.object({
  auto_threshold: optional(nonNegInt),
  refresh_interval: optional(int.pipe(z.number().int().min(1))),
  revalidate_interval: optional(z.preprocess((v) => (typeof v === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v), z.number().positive().max(86_400))),
  max_rows: optional(nonNegInt),
  max_bytes: optional(nonNegInt),
});

const oidcSchema = z.object({
  issuer: name,
  // one audience or a list (a token must name at least one)
  audience: z.union([name, z.array(name).min(1)]),
  jwks_url: optional(name),
  jwks_file: optional(name),
  algorithms: optional(z.array(name).min(1)),
  clock_skew_seconds: optional(nonNegInt),
  role_claim: optional(name),
  subject_claim: optional(name),
  jwks_cache_seconds: optional(nonNegInt),
  jwks_cooldown_seconds: optional(nonNegInt),
});

const roleMappingSchema = z.object({
  claim: name,
  value: optional(str),
  contains: optional(str),
  provisa_role: name,
});

const assignmentSchema = z.object({ role_id: name, domain_id: optional(name) });

const sessionVarSchema = z.object({
  name,
  claim: optional(name),
  role_values: optional(z.record(z.string(), str)),
  client_settable: optional(bool),
});

export const authSchema = z.object({
  // upstream's generic OIDC provider is called oauth
  provider: optional(z.preprocess((v) => (v === 'oauth' ? 'oidc' : v), z.enum(AUTH_PROVIDERS))),
  oidc: optional(oidcSchema),
  role_mapping: optional(z.array(roleMappingSchema)),
  default_role: optional(name),
  default_assignments: optional(z.array(assignmentSchema)),
  session_vars: optional(z.array(sessionVarSchema)),
});

/** `host`, `host:port`, `[v6]` or `[v6]:port`: a name or address, never a path, scheme or wildcard. */
export const HOST_ENTRY = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*|\[[0-9A-Fa-f:.]+\])(?::(?:6553[0-5]|655[0-2]\d|65[0-4]\d{2}|6[0-4]\d{3}|[1-5]\d{4}|[1-9]\d{0,3}))?$/;

export const adminSchema = z.object({
  file_roots: optional(z.array(z.string().min(1).max(4096).refine((v) => !v.includes('\u0000') && !/[*?[{]/.test(v), {
    message: 'expected a directory path (no wildcards)',
  }))),
  allowed_hosts: optional(z.array(z.string().regex(HOST_ENTRY, { message: 'expected host or host:port (a name or address, no scheme, path or wildcard)' }))),
});

export const configSchema = z.object({
  auth: optional(authSchema),
  federation_engine: optional(z.enum(FEDERATION_ENGINES)),
  federation_engine_url: optional(name),
  federation_engine_scratch_dir: optional(z.string().min(1).max(4096)),
  materialize_store_url: optional(name),
  control_plane: optional(controlPlaneSchema),
  cache: optional(cacheSchema),
  hot_tables: optional(hotTablesSchema),
  sources: optional(z.array(sourceSchema)),
  domains: optional(z.array(domainSchema)),
  tables: optional(z.array(tableSchema)),
  relationships: optional(z.array(relationshipSchema)),
  roles: optional(z.array(roleSchema)),
  rls_rules: optional(z.array(rlsRuleSchema)),
  server: optional(serverSchema),
  audit: optional(auditSchema),
  admin: optional(adminSchema),
});

export type RawConfig = z.output<typeof configSchema>;
export type RawAuth = z.output<typeof authSchema>;
export type RawSource = z.output<typeof sourceSchema>;
export type RawTable = z.output<typeof tableSchema>;
export type RawColumn = z.output<typeof columnSchema>;

/** The keys of one kind of object: ours, and upstream's that we deliberately don't support. */
export interface KeyCatalog {
  readonly kind: string;
  readonly known: readonly string[];
  readonly unsupported: readonly string[];
  /** Child objects and lists to check recursively: key → catalog (lists are checked per item). */
  readonly children?: Readonly<Record<string, KeyCatalog>>;
}

const keysOf = (s: z.ZodObject): string[] => Object.keys(s.shape);

const column: KeyCatalog = {
  kind: 'column',
  known: keysOf(columnSchema),
  unsupported: ['writable_by', 'path', 'nullable', 'native_filter_type', 'graphql_alias'],
};

const table: KeyCatalog = {
  kind: 'table',
  known: keysOf(tableSchema),
  unsupported: [
    'warm', 'change_signal', 'probe_query', 'mv_persist', 'mv_primary_key', 'mv_debounce', 'mv_calendar',
    'bitemporal', 'max_rows', 'graphql_alias', 'naming', 'writable', 'governance', 'primary_key',
  ],
  children: { columns: column },
};

const source: KeyCatalog = {
  kind: 'source',
  known: keysOf(sourceSchema),
  unsupported: [
    'cache_enabled', 'prefer_materialized', 'change_signal', 'freshness_gate', 'federation_hints', 'mapping',
    'allowed_domains', 'dialect', 'catalog', 'ssl', 'sslmode', 'options', 'connection_params', 'schema_filter',
    'max_concurrent_queries', 'query_timeout', 'rate_limit', 'circuit_breaker', 'cdc', 'debezium', 'kafka',
    'sentinel', 'probe_query', 'load_protection',
  ],
};

export const CONFIG_KEYS: KeyCatalog = {
  kind: 'config',
  known: keysOf(configSchema),
  unsupported: [
    'federation_engine_host', 'federation_engine_port', 'trino', 'naming', 'warm_tables', 'materialized_views',
    'views', 'observability', 'security', 'functions', 'webhooks', 'metrics', 'api_sources',
    'kafka', 'event_queue', 'graphql', 'grpc', 'flight', 'tenants', 'platform', 'org_settings', 'limits',
    'governance', 'lineage', 'catalog', 'scheduler', 'notifications', 'plugins',
  ],
  children: {
    auth: {
      kind: 'auth',
      known: keysOf(authSchema),
      unsupported: ['superuser', 'simple', 'firebase', 'keycloak', 'oauth', 'assignments_source', 'scram', 'login_throttle'],
      children: {
        oidc: { kind: 'auth.oidc', known: keysOf(oidcSchema), unsupported: ['discovery_url', 'client_id', 'client_secret'] },
        role_mapping: { kind: 'role mapping rule', known: keysOf(roleMappingSchema), unsupported: ['type'] },
        default_assignments: { kind: 'default assignment', known: keysOf(assignmentSchema), unsupported: [] },
        session_vars: { kind: 'session variable', known: keysOf(sessionVarSchema), unsupported: [] },
      },
    },
    control_plane: { kind: 'control_plane', known: keysOf(controlPlaneSchema), unsupported: [] },
    cache: { kind: 'cache', known: keysOf(cacheSchema), unsupported: ['encryption_key', 'key_prefix', 'result_cache'] },
    hot_tables: { kind: 'hot_tables', known: keysOf(hotTablesSchema), unsupported: ['encryption_key'] },
    sources: source,
    domains: { kind: 'domain', known: keysOf(domainSchema), unsupported: ['graphql_alias', 'owner'] },
    tables: table,
    relationships: { kind: 'relationship', known: keysOf(relationshipSchema), unsupported: ['description', 'join_type'] },
    roles: { kind: 'role', known: keysOf(roleSchema), unsupported: ['rate_limit', 'relationship_guard', 'description'] },
    rls_rules: { kind: 'rls rule', known: keysOf(rlsRuleSchema), unsupported: ['description'] },
    server: SERVER_KEYS,
    audit: AUDIT_KEYS,
    admin: { kind: 'admin', known: keysOf(adminSchema), unsupported: [] },
  },
};
