/**
 * Connect to one configured source and read its catalog, whatever its type: relational sources
 * through their drivers' catalogs (src/shoal/sources/relational-catalog.ts), files and tik stores
 * as the engine sees them (src/shoal/engine/duckdb/describe-source.ts). Relative file paths are
 * relative to the config file, as everywhere else. Opens nothing that outlives the call.
 */
import { isAbsolute, resolve } from 'node:path';
import type { SourceConfig } from '../config/model.js';
import { describeEngineSource } from '../engine/duckdb/describe-source.js';
import { readRelationalCatalog } from '../sources/relational-catalog.js';
import type { SourceDialect } from '../sources/source-driver.js';
import { SourcePool } from '../sources/source-pool.js';
import type { SchemaFilter, SourceSchema } from '../sources/source-schema.js';

export interface ReadSchemaOptions {
  /** The directory relative paths are relative to (the config file's). */
  readonly baseDir: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly filter?: SchemaFilter;
  /** File sources: the registered tables to describe (a directory source holds `<table>.<ext>` each). */
  readonly tables?: readonly string[];
}

const DIALECTS: Readonly<Record<string, SourceDialect>> = { postgresql: 'postgresql', mysql: 'mysql', mariadb: 'mysql', sqlite: 'sqlite' };

/** The source's catalog; throws the ShoalError a connection or read failure is (SOURCE_UNAVAILABLE, SECRET_UNRESOLVED, …). */
export async function readSourceSchema(source: SourceConfig, options: ReadSchemaOptions): Promise<SourceSchema> {
  const abs = source.path !== undefined && source.path !== '' && !isAbsolute(source.path) ? { ...source, path: resolve(options.baseDir, source.path) } : source;
  const dialect = DIALECTS[source.type];
  if (dialect === undefined) return describeEngineSource(abs, options.filter ?? {}, options.tables);
  const pool = new SourcePool(options.env ?? process.env, { statementTimeoutMs: 30_000 });
  try {
    const driver = pool.driver(dialect, abs);
    return await readRelationalCatalog(driver, options.filter ?? {}, source.database);
  } finally {
    await pool.closeAll();
  }
}
