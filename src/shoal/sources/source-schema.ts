/**
 * What a source's own catalog says it holds: its tables, and per table the columns with the type
 * the source declares (`nativeType`, as the source spells it) and the config type name shoal maps
 * it to (`configType`, what `data_type:` should say). `shoal introspect` prints it as config and
 * `shoal config check --connect` binds a config against it.
 */

export interface SourceColumnInfo {
  readonly name: string;
  /** As the source declares it: `numeric(12,2)`, `int(10) unsigned`, `TEXT`, `VARCHAR`. */
  readonly nativeType: string;
  /** The config's name for it (see the per-source mappings), e.g. `decimal(12,2)`, `bigint`, `varchar`. */
  readonly configType: string;
  readonly primaryKey?: boolean;
}

export interface SourceTableInfo {
  /** The schema at the source (PostgreSQL schema, MySQL database, `main` for SQLite, `default` for files and tik). */
  readonly schema: string;
  readonly table: string;
  readonly columns: readonly SourceColumnInfo[];
}

export interface SourceSchema {
  readonly sourceId: string;
  readonly tables: readonly SourceTableInfo[];
}

/** Which tables to read: every table, or those of one schema and/or one name (case-insensitive). */
export interface SchemaFilter {
  readonly schema?: string | undefined;
  readonly table?: string | undefined;
}

/** The table named `table` (in `schema`, when given), matched as the source would (case-insensitively). */
export function findSourceTable(schema: SourceSchema, table: string, inSchema?: string): SourceTableInfo | undefined {
  const t = table.toLowerCase();
  const s = inSchema?.toLowerCase();
  const candidates = schema.tables.filter((x) => x.table.toLowerCase() === t && (s === undefined || x.schema.toLowerCase() === s));
  return candidates.find((x) => x.table === table) ?? candidates[0];
}

/** A column by name, exact first, then case-insensitively (as unquoted identifiers bind). */
export function findSourceColumn(table: SourceTableInfo, name: string): SourceColumnInfo | undefined {
  return table.columns.find((c) => c.name === name) ?? table.columns.find((c) => c.name.toLowerCase() === name.toLowerCase());
}
