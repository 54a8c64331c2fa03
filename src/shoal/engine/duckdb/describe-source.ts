/**
 * The schema the engine itself sees for sources it reads in place or derives: CSV, Parquet and
 * JSON files (DuckDB `DESCRIBE` of the very view body the connector defines, so the types are
 * those a query meets) and tik stores (their three fixed tables). `shoal introspect` and
 * `shoal config check --connect` read these; nothing is kept.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { ShoalError } from '../../errors.js';
import { configTypeOfDuckDb } from '../../sources/config-type-names.js';
import type { SchemaFilter, SourceSchema, SourceTableInfo } from '../../sources/source-schema.js';
import { catalogEntryFor, type EngineSourceConfig } from '../catalog-entry.js';
import { csvConnector } from './connectors/csv.js';
import { jsonConnector } from './connectors/json.js';
import { parquetConnector } from './connectors/parquet.js';
import { TIK_TABLES } from './connectors/tik-store.js';
import { openFileStore } from '../../../tik/store/index.js';

const SCANNERS = { csv: csvConnector, parquet: parquetConnector, json: jsonConnector } as const;
type FileType = keyof typeof SCANNERS;

const isFileType = (t: string): t is FileType => t === 'csv' || t === 'parquet' || t === 'json';

/** The tables of a file source: a file is one table (named by its stem); a directory holds one `<table>.<ext>` per table. */
function fileTables(source: EngineSourceConfig, type: FileType, filter: SchemaFilter): { table: string; file: string }[] {
  const path = resolve(source.path ?? '');
  const missing = () =>
    new ShoalError('SOURCE_UNAVAILABLE', `${type} source "${source.id}": ${path} does not exist`, {
      where: `sources.${source.id}.path`,
      hint: `set path to an existing ${type} file, or a directory of <table>.${type} files`,
    });
  if (!existsSync(path)) throw missing();
  if (!statSync(path).isDirectory()) return [{ table: basename(path, extname(path)), file: path }];
  const want = filter.table?.toLowerCase();
  return readdirSync(path)
    .filter((f) => extname(f).toLowerCase() === `.${type}`)
    .map((f) => ({ table: basename(f, extname(f)), file: join(path, f) }))
    .filter((t) => want === undefined || t.table.toLowerCase() === want)
    .sort((a, b) => (a.table < b.table ? -1 : a.table > b.table ? 1 : 0));
}

/**
 * Describe a file source (`csv`, `parquet`, `json`) or a tik store. `tables` names the registered
 * tables to describe (for a directory source each is `<dir>/<table>.<ext>`; a missing file is a
 * SOURCE_UNAVAILABLE naming it); absent = every table found at the path.
 */
export async function describeEngineSource(source: EngineSourceConfig, filter: SchemaFilter = {}, tables?: readonly string[]): Promise<SourceSchema> {
  const type = source.type.toLowerCase();
  if (type === 'tik') {
    try {
      await openFileStore(resolve(source.path ?? '')).ticketIds();
    } catch (e) {
      throw new ShoalError('SOURCE_UNAVAILABLE', `tik source "${source.id}" cannot be read at ${resolve(source.path ?? '')}`, {
        where: `sources.${source.id}.path`,
        hint: 'set path to the root of a tik file store (tik init)',
        cause: e,
      });
    }
    const want = filter.table?.toLowerCase();
    const out: SourceTableInfo[] = Object.entries(TIK_TABLES)
      .filter(([name]) => want === undefined || name === want)
      .map(([name, cols]) => ({ schema: 'default', table: name, columns: cols.map((c) => ({ name: c.name, nativeType: c.type, configType: configTypeOfDuckDb(c.type) })) }));
    return { sourceId: source.id, tables: out };
  }
  if (!isFileType(type)) {
    throw new ShoalError('SOURCE_TYPE_UNSUPPORTED', `source "${source.id}" of type ${source.type} is not a file or tik source`, { where: `sources.${source.id}.type` });
  }
  const scanner = SCANNERS[type];
  const targets = tables === undefined
    ? fileTables(source, type, filter)
    : tables.map((t) => {
        const entry = catalogEntryFor({ source_id: source.id, domain_id: 'x', table: t }, source);
        return { table: t, file: scanner.filePath(entry) };
      });
  const instance = await DuckDBInstance.create(':memory:', { threads: '1', autoinstall_known_extensions: 'false' });
  const conn = await instance.connect();
  try {
    const out: SourceTableInfo[] = [];
    for (const t of targets) {
      if (!existsSync(t.file)) {
        throw new ShoalError('SOURCE_UNAVAILABLE', `${type} source "${source.id}": file ${t.file} does not exist`, {
          where: `sources.${source.id}.path`,
          hint: `set path to the ${type} file, or put ${t.table}.${type} in the source's directory`,
        });
      }
      const entry = catalogEntryFor({ source_id: source.id, domain_id: 'x', table: t.table }, { ...source, path: t.file });
      let rows: unknown[][];
      try {
        rows = (await conn.runAndReadAll(`DESCRIBE ${scanner.viewBody(entry)}`)).getRows() as unknown[][];
      } catch (e) {
        // DuckDB's text can quote file content: say which file, keep the text as the cause
        throw new ShoalError('SOURCE_UNAVAILABLE', `${type} source "${source.id}": ${t.file} cannot be read as ${type}`, {
          where: `sources.${source.id}.path`,
          hint: `check that the file is valid ${type}${type === 'csv' ? ' with a header row' : ''}`,
          cause: e,
        });
      }
      out.push({
        schema: 'default',
        table: t.table,
        columns: rows.map((r) => ({ name: String(r[0]), nativeType: String(r[1]), configType: configTypeOfDuckDb(String(r[1])) })),
      });
    }
    return { sourceId: source.id, tables: out };
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}
