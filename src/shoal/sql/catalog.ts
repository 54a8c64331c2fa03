/**
 * What the SQL pipeline needs to know about the registered model: the narrow input of
 * `planQuery`. The config/registry side builds it (`catalogFromConfig`, or `createCatalog` from
 * plain data); the engine side decides `engineName`.
 */

/** A registered column: `type` is the declared data type (lower case, e.g. `varchar`, `date`). */
export interface CatalogColumn {
  readonly name: string;
  readonly type?: string;
}

export interface CatalogSource {
  readonly id: string;
  /** Source type as configured: `postgresql`, `mysql`, `mariadb`, `sqlite`, `csv`, `parquet`, … */
  readonly type: string;
  /**
   * MySQL/MariaDB only: string columns use binary collations (`*_bin`), so string comparison,
   * grouping and ordering match PostgreSQL's (C collation) and may run directly.
   */
  readonly binaryStrings?: boolean;
}

/** A registered table and the names it is reached by on each route. */
export interface CatalogTable {
  /** Stable key: the qualified name `<domain>.<alias ?? table>`, lower case. */
  readonly tableKey: string;
  readonly domain: string;
  readonly source: CatalogSource;
  /** Every registered column in declaration order (visibility is per role, see below). */
  readonly columns: readonly CatalogColumn[];
  /** Identifier parts of the relation the engine (DuckDB) exposes for this table; 1 to 3 parts. */
  readonly engineName: readonly string[];
  /** The table in its own source, used on the direct route. `schema` is omitted for SQLite `main`. */
  readonly sourceName: { readonly schema?: string; readonly table: string };
}

/**
 * A column mask. `regex` uses `$1`-style group references, as upstream writes them; the
 * generator translates them per target (`\1` for PostgreSQL, DuckDB and MariaDB).
 */
export type ColumnMask =
  | { readonly kind: 'regex'; readonly pattern: string; readonly replace: string }
  | { readonly kind: 'constant'; readonly value: string | null }
  | { readonly kind: 'truncate'; readonly precision: string };

/** A role after inheritance is resolved. */
export interface CatalogRole {
  readonly id: string;
  /** Row cap for this role (its own or inherited `max_rows`, or the default row limit). */
  readonly rowCap?: number;
}

export interface GovernanceCatalog {
  /**
   * Every table a reference can mean, by its identifier parts (already case-folded as
   * PostgreSQL binds them): `[domain, name]`, `[source_catalog, schema, table]` or `[name]`.
   * Matching is case-insensitive on purpose: over-applying a policy is safe, under-applying leaks.
   */
  resolveTable(parts: readonly string[]): readonly CatalogTable[];
  role(roleId: string): CatalogRole | undefined;
  /** Keys (`<domain>.<table>`) of every registered table, visible or not (callers filter by role). */
  tableKeys(): readonly string[];
  /** Whether the role may query the table at all (domain access). */
  canAccess(roleId: string, tableKey: string): boolean;
  /** Names of the columns this role may see, in declaration order. */
  visibleColumns(roleId: string, tableKey: string): readonly string[];
  /** The mask applied to a column for this role, if any. */
  mask(roleId: string, tableKey: string, column: string): ColumnMask | undefined;
  /** PostgreSQL-flavoured predicates (ANDed) that bound the rows this role sees. */
  rowFilters(roleId: string, tableKey: string): readonly string[];
}
