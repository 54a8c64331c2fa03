/**
 * `shoal config check --connect`: connect to every source and bind the config against what it
 * really holds — each registered table exists, each registered column exists (and its declared
 * type agrees with the source's), each mask meets a column of a type it can apply to, each RLS
 * filter reads only columns the table has. Every problem is reported (not just the first), with
 * the key path of the config entry and what it names.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { child, item, type ConfigIssue } from '../config/config-issue.js';
import { didYouMean } from '../config/did-you-mean.js';
import { DERIVED_SOURCE_ID, qualifiedName, type CatalogModel, type SourceConfig, type TableConfig } from '../config/model.js';
import { catalogEntryFor } from '../engine/catalog-entry.js';
import { typeClass, type TypeClass } from '../sql/column-type.js';
import { filterColumns } from '../sql/filter-columns.js';
import { findSourceColumn, type SourceSchema, type SourceTableInfo } from '../sources/source-schema.js';
import { ruleSubject, ruleTargets } from './policy-targets.js';
import { readSourceSchema, type ReadSchemaOptions } from './read-source-schema.js';
import { bindStatically, type BindingReport } from './static-binding.js';

export interface ConnectOptions {
  readonly baseDir: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Read one source's schema (default: connect with readSourceSchema). */
  readonly readSchema?: (source: SourceConfig, options: ReadSchemaOptions) => Promise<SourceSchema>;
}

/** Per source: whether it was reached and how many of its registered tables were bound. */
export interface SourceReach {
  readonly id: string;
  readonly ok: boolean;
  readonly tables: number;
}

export interface ConnectReport extends BindingReport {
  readonly sources: readonly SourceReach[];
}

/** Mask kinds and the value classes (as they reach shoal) each can apply to. */
const MASK_CLASSES: Readonly<Record<string, readonly TypeClass[]>> = {
  truncate: ['date', 'timestamp', 'integer', 'numeric'],
  regex: ['string', 'other'],
};

const list = (names: readonly string[], max = 30): string => (names.length > max ? `${names.slice(0, max).join(', ')}, … (${names.length} in all)` : names.join(', ') || '(none)');

/** Classes that hold the same kind of value for binding (an int4 declared as bigint is fine). */
function compatible(declared: TypeClass, actual: TypeClass): boolean {
  if (declared === actual || declared === 'other' || actual === 'other') return true;
  const numbers: readonly TypeClass[] = ['integer', 'numeric'];
  return numbers.includes(declared) && numbers.includes(actual);
}

export async function bindAgainstSources(catalog: CatalogModel, options: ConnectOptions): Promise<ConnectReport> {
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const read = options.readSchema ?? readSourceSchema;
  const schemas = new Map<string, SourceSchema>();
  const reach: SourceReach[] = [];

  // sources one at a time: a check is a handful of catalog reads, and sources are often shared servers
  const perTable = new Map<number, ConfigIssue>();
  for (const [i, source] of catalog.sources.entries()) {
    const tables = catalog.tables.filter((t) => t.source_id === source.id).map((t) => t.table);
    if (isDirectorySource(source, options.baseDir)) {
      // a directory of <table>.<ext> files: a missing file is that table's problem, not the source's
      const found: SourceTableInfo[] = [];
      for (const [k, t] of catalog.tables.entries()) {
        if (t.source_id !== source.id) continue;
        try {
          found.push(...(await read(source, { baseDir: options.baseDir, ...(options.env ? { env: options.env } : {}), tables: [t.table] })).tables);
        } catch (e) {
          const err = e as { message?: string; hint?: string };
          perTable.set(k, {
            code: 'CONFIG_TABLE_NOT_IN_SOURCE',
            path: child(item('tables', k), 'table'),
            subject: qualifiedName(t),
            message: err.message ?? String(e),
            ...(err.hint ? { hint: err.hint } : {}),
          });
        }
      }
      schemas.set(source.id, { sourceId: source.id, tables: found });
      reach.push({ id: source.id, ok: true, tables: found.length });
      continue;
    }
    try {
      const schema = await read(source, { baseDir: options.baseDir, ...(options.env ? { env: options.env } : {}), ...(isFileSource(source) ? { tables } : {}) });
      schemas.set(source.id, schema);
      reach.push({ id: source.id, ok: true, tables: tables.length });
    } catch (e) {
      const err = e as { message?: string; hint?: string; code?: string };
      errors.push({
        code: 'CONFIG_SOURCE_UNREACHABLE',
        path: item('sources', i),
        subject: `source ${source.id}`,
        message: `cannot read the source's catalog: ${err.message ?? String(e)}${tables.length ? ` (its ${tables.length} table(s) were not checked)` : ''}`,
        ...(err.hint ? { hint: err.hint } : {}),
      });
      reach.push({ id: source.id, ok: false, tables: 0 });
    }
  }

  const bound = new Set<number>();
  const found = new Map<number, SourceTableInfo>();
  catalog.tables.forEach((t, i) => {
    if (t.source_id === DERIVED_SOURCE_ID) return;
    const source = catalog.sources.find((s) => s.id === t.source_id);
    const schema = schemas.get(t.source_id);
    if (!source || !schema) return; // unknown source: the loader reports it; unreachable: reported above
    bound.add(i);
    const at = item('tables', i);
    const unread = perTable.get(i);
    if (unread) {
      errors.push(unread);
      return;
    }
    const { table, where } = locate(t, source, schema);
    if (!table) {
      const names = schema.tables.filter((x) => where === undefined || x.schema.toLowerCase() === where.toLowerCase()).map((x) => x.table);
      const guess = didYouMean(t.table, names);
      errors.push({
        code: 'CONFIG_TABLE_NOT_IN_SOURCE',
        path: child(at, 'table'),
        subject: qualifiedName(t),
        message: `table ${where ? `${where}.` : ''}${t.table} not found in source ${t.source_id}; ${where ? `tables in ${where}` : 'tables'} are: ${list(names)}`,
        hint: guess ? `did you mean "${guess}"?` : 'fix table (and schema), or run `shoal introspect --source ' + t.source_id + '` to list them',
      });
      return;
    }
    found.set(i, table);
    const shown = `${table.schema}.${table.table}`;
    const names = table.columns.map((c) => c.name);
    t.columns.forEach((c, j) => {
      const cat = item(child(at, 'columns'), j);
      const subject = `${qualifiedName(t)}.${c.name}`;
      const col = findSourceColumn(table, c.name);
      if (!col) {
        const guess = didYouMean(c.name, names);
        errors.push({
          code: 'CONFIG_COLUMN_NOT_IN_SOURCE',
          path: cat,
          subject,
          message: `column not found in source ${t.source_id} table ${shown}; columns are: ${list(names)}`,
          hint: guess ? `did you mean "${guess}"?` : 'remove the column or fix its name',
        });
        return;
      }
      const actual = typeClass(col.configType);
      const allowed = c.mask_type === undefined ? undefined : MASK_CLASSES[c.mask_type];
      const maskFails = allowed !== undefined && !allowed.includes(actual);
      // a mask that cannot apply is the error to fix; the type warning would only restate it
      if (c.data_type !== undefined && !maskFails && !compatible(typeClass(c.data_type), actual)) {
        warnings.push({
          code: 'CONFIG_COLUMN_TYPE_MISMATCH',
          path: child(cat, 'data_type'),
          subject,
          message: `declared ${c.data_type}, but source ${t.source_id} has ${col.nativeType} (it reaches shoal as ${col.configType})`,
          hint:
            source.type === 'sqlite' && ['date', 'timestamp'].includes(typeClass(c.data_type))
              ? `declare data_type: ${col.configType}, or declare the SQLite column ${typeClass(c.data_type) === 'date' ? 'DATE' : 'DATETIME'} so it lands as a ${typeClass(c.data_type)}`
              : `declare data_type: ${col.configType}`,
        });
      }
      if (maskFails) {
        errors.push({
          code: 'CONFIG_MASK_TYPE',
          path: child(cat, 'mask_type'),
          subject,
          message:
            `a ${c.mask_type} mask cannot apply: source ${t.source_id} has ${col.nativeType} (it reaches shoal as ${col.configType}), ` +
            `and ${c.mask_type === 'truncate' ? 'truncate needs a date, timestamp or number' : 'regex needs a string'}; every read of the column would fail`,
          hint:
            c.mask_type === 'truncate'
              ? `store the column as a ${source.type === 'sqlite' ? 'DATETIME/TIMESTAMP/DATE (SQLite declared type)' : 'date or timestamp'} at the source, or use mask_type: constant`
              : 'use mask_type: constant for a non-string column',
        });
      }
    });
  });

  // RLS filters: every column a filter reads must be a column of each table it governs
  const reported = new Set<string>();
  for (const { ruleIndex, rule, tableIndex, table: t } of ruleTargets(catalog)) {
    const table = found.get(tableIndex);
    if (!table) continue;
    const cols = filterColumns(rule.filter);
    if (cols === undefined) continue; // CONFIG_RLS_INVALID (static)
    const names = table.columns.map((c) => c.name);
    for (const c of cols) {
      if (findSourceColumn(table, c)) continue;
      const key = `${ruleIndex}\u0000${tableIndex}\u0000${c}`;
      if (reported.has(key)) continue;
      reported.add(key);
      const guess = didYouMean(c, names);
      errors.push({
        code: 'CONFIG_RLS_UNKNOWN_COLUMN',
        path: child(item('rls_rules', ruleIndex), 'filter'),
        subject: ruleSubject(rule),
        message: `filter reads column "${c}", not found in source ${t.source_id} table ${table.schema}.${table.table} (${qualifiedName(t)}); columns are: ${list(names)}`,
        hint: guess ? `did you mean "${guess}"?` : 'filter on a column the table has',
      });
    }
  }

  const statics = bindStatically(catalog, { boundAtSource: new Set([...bound].filter((i) => found.has(i))) });
  return { errors: [...errors, ...statics.errors], warnings: [...warnings, ...statics.warnings], sources: reach };
}

function isDirectorySource(s: SourceConfig, baseDir: string): boolean {
  if (!isFileSource(s) || s.path === undefined || s.path === '') return false;
  try {
    return statSync(resolve(baseDir, s.path)).isDirectory();
  } catch {
    return false; // a missing path is the source's error
  }
}

function isFileSource(s: SourceConfig): boolean {
  return s.type === 'csv' || s.type === 'parquet' || s.type === 'json';
}

/** The source table a registered table reads, and the source schema it is looked up in (undefined = any). */
function locate(t: TableConfig, source: SourceConfig, schema: SourceSchema): { table: SourceTableInfo | undefined; where: string | undefined } {
  if (isFileSource(source) || source.type === 'tik') {
    // a single-file source is its one table, whatever the registered name
    const only = isFileSource(source) && schema.tables.length === 1 ? schema.tables[0] : undefined;
    return { table: only ?? schema.tables.find((x) => x.table.toLowerCase() === t.table.toLowerCase()), where: undefined };
  }
  const remote = catalogEntryFor(t, source).remoteSchema;
  const where = source.type === 'sqlite' ? 'main' : remote === 'default' ? undefined : remote;
  const candidates = schema.tables.filter((x) => x.table.toLowerCase() === t.table.toLowerCase() && (where === undefined || x.schema.toLowerCase() === where.toLowerCase()));
  return { table: candidates.find((x) => x.table === t.table) ?? candidates[0], where };
}
