/**
 * A catalog entry: one registered table as the engine sees it, derived from the table's config
 * and its source's config (federation-fleet.md §4.1). The engine projects each entry under two
 * names: the physical three-part name `"<source id with - as _>"."<schema>"."<table>"` that
 * view_sql uses, and the domain name `"<domain>"."<alias or table>"`.
 */
import { ShoalError } from '../errors.js';
import { DERIVED_SOURCE_ID } from '../config/model.js';

/** The fields of a source the engine reads (a structural subset of config's SourceConfig). */
export interface EngineSourceConfig {
  readonly id: string;
  readonly type: string;
  readonly host?: string | undefined;
  readonly port?: number | undefined;
  readonly database?: string | undefined;
  readonly username?: string | undefined;
  /** Kept unresolved (`${env:VAR}`); resolved only when connecting. */
  readonly password?: string | undefined;
  readonly path?: string | undefined;
  readonly attach?: boolean | undefined;
}

/** The fields of a table the engine reads (a structural subset of config's TableConfig). */
export interface EngineTableConfig {
  readonly source_id: string;
  readonly domain_id: string;
  readonly schema?: string | undefined;
  readonly table: string;
  readonly alias?: string | undefined;
  readonly columns?: readonly { readonly name: string; readonly data_type?: string | undefined }[] | undefined;
}

/** Source types the DuckDB engine has a connector for. */
export type SourceType = 'postgresql' | 'mysql' | 'sqlite' | 'csv' | 'parquet' | 'json' | 'tik';

/** How rows reach the engine: read in place as a view, landed per query, or a live ATTACH. */
export type Mechanism = 'scan' | 'land' | 'attach';

/** Identifies a registered table by its source and registered schema and name. */
export interface TableRef {
  readonly sourceId: string;
  readonly schema: string;
  readonly table: string;
}

export interface CatalogEntry {
  /** Stable identity: `<catalog>.<schema>.<table>`. */
  readonly key: string;
  readonly source: {
    readonly id: string;
    readonly type: SourceType;
    readonly host?: string | undefined;
    readonly port?: number | undefined;
    readonly database?: string | undefined;
    readonly username?: string | undefined;
    readonly password?: string | undefined;
    readonly path?: string | undefined;
  };
  readonly mechanism: Mechanism;
  /** Physical name parts. `catalog` is the source id with `-` replaced by `_`. */
  readonly catalog: string;
  readonly schema: string;
  readonly table: string;
  /** The schema (or MySQL database) the table lives in at the source. */
  readonly remoteSchema: string;
  readonly domain: string;
  readonly alias: string;
  readonly columns: readonly { readonly name: string; readonly dataType?: string | undefined }[];
}

const TYPE_ALIASES: Readonly<Record<string, SourceType>> = {
  postgresql: 'postgresql',
  postgres: 'postgresql',
  mysql: 'mysql',
  mariadb: 'mysql',
  sqlite: 'sqlite',
  csv: 'csv',
  parquet: 'parquet',
  json: 'json',
  tik: 'tik',
};

/** The canonical source type, or a SOURCE_TYPE_UNSUPPORTED error naming the source. */
export function sourceTypeOf(source: Pick<EngineSourceConfig, 'id' | 'type'>): SourceType {
  const t = TYPE_ALIASES[source.type.toLowerCase()];
  if (t === undefined) {
    throw new ShoalError('SOURCE_TYPE_UNSUPPORTED', `source "${source.id}" has type "${source.type}", which the DuckDB engine cannot reach`, {
      where: `sources.${source.id}.type`,
      hint: `use one of: ${Object.keys(TYPE_ALIASES).join(', ')}`,
    });
  }
  return t;
}

/** The engine catalog a source's tables live in: its id with `-` replaced by `_`. */
export function catalogName(sourceId: string): string {
  return sourceId.replace(/-/g, '_');
}

function defaultSchema(type: SourceType): string {
  if (type === 'postgresql') return 'public';
  if (type === 'sqlite') return 'main';
  return 'default';
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** Derive the catalog entry for `table`, which must belong to `source`. */
export function catalogEntryFor(table: EngineTableConfig, source: EngineSourceConfig): CatalogEntry {
  if (table.source_id !== source.id) {
    throw new ShoalError('ENGINE_ENTRY_MISMATCH', `table "${table.table}" belongs to source "${table.source_id}", not "${source.id}"`, {
      where: `tables.${table.table}.source_id`,
      hint: 'pair each table with its own source',
    });
  }
  const type = sourceTypeOf(source);
  const schema = table.schema !== undefined && table.schema !== '' ? table.schema : defaultSchema(type);
  // The registry's default schema is the literal name "default"; at the source it means the
  // source's own default (PostgreSQL public, the MySQL database, SQLite main).
  const remoteSchema =
    type === 'sqlite'
      ? 'main'
      : schema !== 'default'
        ? schema
        : type === 'postgresql'
          ? 'public'
          : type === 'mysql'
            ? (source.database ?? schema)
            : schema;
  const mechanism: Mechanism =
    type === 'csv' || type === 'parquet' || type === 'json'
      ? 'scan'
      : source.attach === true && (type === 'postgresql' || type === 'mysql' || type === 'sqlite')
        ? 'attach'
        : 'land';
  const catalog = catalogName(source.id);
  const entry: CatalogEntry = {
    key: `${catalog}.${schema}.${table.table}`,
    source: {
      id: source.id,
      type,
      host: source.host,
      port: source.port,
      database: source.database,
      username: source.username,
      password: source.password,
      path: source.path,
    },
    mechanism,
    catalog,
    schema,
    table: table.table,
    remoteSchema,
    domain: table.domain_id,
    alias: table.alias !== undefined && table.alias !== '' ? table.alias : table.table,
    columns: (table.columns ?? []).map((c) => ({ name: c.name, dataType: c.data_type })),
  };
  return deepFreeze(entry);
}

/**
 * Derive every entry for a set of tables (config's `TableConfig[]` and `SourceConfig[]` fit),
 * looking each one's source up by id. Governed views (`source_id: __derived__`) are not source
 * tables and are skipped: they are defined over these entries by view_sql.
 */
export function catalogEntries(tables: readonly EngineTableConfig[], sources: readonly EngineSourceConfig[]): CatalogEntry[] {
  const byId = new Map(sources.map((s) => [s.id, s]));
  return tables.filter((t) => t.source_id !== DERIVED_SOURCE_ID).map((t) => {
    const s = byId.get(t.source_id);
    if (s === undefined) {
      throw new ShoalError('ENGINE_UNKNOWN_SOURCE', `table "${t.table}" names source "${t.source_id}", which is not registered`, {
        where: `tables.${t.table}.source_id`,
        hint: 'register the source first, or fix the source_id',
      });
    }
    return catalogEntryFor(t, s);
  });
}

/** A canonical text of everything that shapes an entry's projection; equal text ⇔ same projection. */
export function entryFingerprint(entry: CatalogEntry): string {
  return JSON.stringify(entry, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** Whether `ref` names this entry. */
export function entryMatches(entry: CatalogEntry, ref: TableRef): boolean {
  return entry.source.id === ref.sourceId && entry.schema === ref.schema && entry.table === ref.table;
}
