/**
 * Answers to the `pg_catalog` queries PostgreSQL clients send to browse a database: psql's `\d`,
 * `\dt`, `\dn` and `\d <table>`, and pgjdbc's DatabaseMetaData.getTables / getColumns. shoal has
 * no pg_catalog to run them on, so each known query shape is recognised and answered from the
 * governed catalog of the acting role (QueryService.catalog: the tables it may read and only
 * their visible columns, the same answer `information_schema` gives). A pg_catalog query of
 * another shape gets an empty result with the columns its select list names, so a tool that
 * probes for optional features sees "none" rather than an error.
 *
 * Every domain is treated as on the search path (`pg_table_is_visible` is true for every table).
 */
import type { CatalogTableInfo, ColumnInfo } from '../server/query-service.js';
import { likePattern, regexPattern, type NamePattern } from './name-pattern.js';
import { pgTypeOf } from './pg-types.js';

export interface CatalogAnswer {
  readonly columns: readonly ColumnInfo[];
  readonly rows: readonly (readonly unknown[])[];
}

const CATALOG_QUERY = /\bpg_catalog\s*\.|\bpg_(class|namespace|attribute|type|database|roles|settings|proc|index|description|am|tables|views)\b/i;

/** Whether `sql` reads PostgreSQL's system catalog (and is answered here, not by the engine). */
export function isCatalogQuery(sql: string): boolean {
  return CATALOG_QUERY.test(sql);
}

/** A stable OID for a catalog object, from its name (user OIDs start at 16384 in PostgreSQL). */
export function objectOid(key: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(key, 'utf8')) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return 16_384 + (h & 0x3fffffff);
}

const tableOid = (t: CatalogTableInfo): number => objectOid(`table:${t.schema}.${t.name}`);

/** The output names of the first select list of `sql` (aliases, else the last name of a column or function). */
export function selectListNames(sql: string): string[] {
  const m = /\bselect\b/i.exec(sql);
  if (!m) return [];
  const items: string[] = [];
  let depth = 0;
  let from = m.index + m[0].length;
  let i = from;
  for (; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const close = sql.indexOf(c, i + 1);
      i = close < 0 ? sql.length : close;
    } else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && c === ',') {
      items.push(sql.slice(from, i));
      from = i + 1;
    } else if (depth === 0 && /^from\b/i.test(sql.slice(i, i + 5)) && /\s/.test(sql[i - 1] ?? ' ')) break;
  }
  items.push(sql.slice(from, i));
  return items.map(nameOfItem);
}

function nameOfItem(item: string): string {
  const t = item.trim();
  const alias = /\bas\s+("(?:[^"]|"")*"|[A-Za-z_][\w$]*)\s*$/i.exec(t);
  if (alias) return alias[1]!.startsWith('"') ? alias[1]!.slice(1, -1).replace(/""/g, '"') : alias[1]!.toLowerCase();
  if (/^case\b/i.test(t)) return 'case';
  const call = /^(?:[A-Za-z_][\w$]*\.)?([A-Za-z_][\w$]*)\s*\(/.exec(t);
  if (call) return call[1]!.toLowerCase();
  const sub = /^\(\s*select\s+(?:[A-Za-z_][\w$]*\.)*([A-Za-z_][\w$]*)/i.exec(t);
  if (sub) return sub[1]!.toLowerCase();
  const col = /(?:^|\.)([A-Za-z_][\w$]*)$/.exec(t);
  if (col && !/^(true|false|null)$/i.test(col[1]!)) return col[1]!.toLowerCase();
  return '?column?';
}

/** The pattern a psql query filters `column` by (`column OPERATOR(pg_catalog.~) '…'`), if any. */
function regexFilter(sql: string, column: string): NamePattern | undefined {
  const m = new RegExp(`${column.replace('.', '\\.')}\\s+OPERATOR\\(pg_catalog\\.~\\)\\s+'((?:[^']|'')*)'`, 'i').exec(sql);
  return m ? regexPattern(m[1]!.replace(/''/g, "'")) : undefined;
}

/** The pattern a pgjdbc query filters `column` by (`column LIKE '…'` or `E'…'`), if any. */
function likeFilter(sql: string, column: string): NamePattern | undefined {
  const m = new RegExp(`${column.replace('.', '\\.')}\\s+LIKE\\s+(E?)'((?:[^']|'')*)'`, 'i').exec(sql);
  if (!m) return undefined;
  const raw = m[2]!.replace(/''/g, "'");
  return likePattern(m[1] ? raw.replace(/\\\\/g, '\\') : raw);
}

const type = (name: string, t: string): ColumnInfo => ({ name, type: t });

/** The column types of known catalog column names (any other is text). */
const TYPES: Readonly<Record<string, string>> = {
  oid: 'integer', atttypid: 'integer', atttypmod: 'integer', attlen: 'smallint', typtypmod: 'integer', attnum: 'bigint', typbasetype: 'integer',
  relchecks: 'smallint', reltablespace: 'integer', attstattarget: 'integer',
  attnotnull: 'boolean', relhasindex: 'boolean', relhasrules: 'boolean', relhastriggers: 'boolean', relrowsecurity: 'boolean',
  relforcerowsecurity: 'boolean', relhasoids: 'boolean', relispartition: 'boolean',
};

function answer(names: readonly string[], rows: readonly Readonly<Record<string, unknown>>[]): CatalogAnswer {
  return {
    columns: names.map((n) => type(n, TYPES[n] ?? 'text')),
    // pgjdbc quotes its upper-case aliases ("TABLE_SCHEM"); the row offers them in lower case
    rows: rows.map((r) => names.map((n) => (Object.hasOwn(r, n) ? r[n] : Object.hasOwn(r, n.toLowerCase()) ? r[n.toLowerCase()] : null))),
  };
}

/** The values a relation row offers, under the names psql and pgjdbc select them by. */
function relationRow(t: CatalogTableInfo): Record<string, unknown> {
  return {
    Schema: t.schema, Name: t.name, Type: 'table', Owner: 'shoal', Persistence: 'permanent', 'Access method': 'heap', Size: '', Description: null,
    oid: tableOid(t), nspname: t.schema, relname: t.name,
    relchecks: 0, relkind: 'r', relhasindex: false, relhasrules: false, relhastriggers: false, relrowsecurity: false,
    relforcerowsecurity: false, relhasoids: false, relispartition: false, reltablespace: 0, relpersistence: 'p', relreplident: 'd', amname: 'heap',
    table_cat: null, table_schem: t.schema, table_name: t.name, table_type: 'TABLE', remarks: null,
    type_cat: '', type_schem: '', type_name: '', self_referencing_col_name: '', ref_generation: '',
  };
}

function columnRows(t: CatalogTableInfo): Record<string, unknown>[] {
  return t.columns.map((c, i) => {
    const pg = pgTypeOf(c.type);
    return {
      attname: c.name, format_type: c.type, pg_get_expr: null, attnotnull: false, attcollation: null, attidentity: '', attgenerated: '',
      attstorage: pg.size === -1 ? 'x' : 'p', attcompression: '', attstattarget: -1, col_description: c.masked ? 'masked for this role' : null,
      nspname: t.schema, relname: t.name, atttypid: pg.oid, atttypmod: pg.modifier, attlen: pg.size, typtypmod: -1, attnum: i + 1,
      adsrc: null, description: c.masked ? 'masked for this role' : null, typbasetype: 0, typtype: 'b',
    };
  });
}

const JDBC_COLUMNS = ['nspname', 'relname', 'attname', 'atttypid', 'attnotnull', 'atttypmod', 'attlen', 'typtypmod', 'attnum', 'attidentity', 'attgenerated', 'adsrc', 'description', 'typbasetype', 'typtype'];

/** The answer to a catalog query (see isCatalogQuery) over the tables the role may see. */
export function answerCatalogQuery(sql: string, tables: readonly CatalogTableInfo[]): CatalogAnswer {
  const names = selectListNames(sql);
  const sorted = [...tables].sort((a, b) => (a.schema === b.schema ? (a.name < b.name ? -1 : 1) : a.schema < b.schema ? -1 : 1));
  const pick = (schemaOk: NamePattern | undefined, nameOk: NamePattern | undefined) =>
    sorted.filter((t) => (!schemaOk || schemaOk.matches(t.schema)) && (!nameOk || nameOk.matches(t.name)));
  const byOid = /\b(?:c\.oid|attrelid)\s*=\s*'(\d+)'/i.exec(sql);

  // pgjdbc getColumns: an outer SELECT * over a join of pg_attribute, filtered by LIKE patterns
  if (/\ba\.atttypid\b/i.test(sql) && /\bpg_catalog\.pg_attribute\s+a\b/i.test(sql) && /\bn\.nspname\s*,\s*c\.relname\s*,\s*a\.attname\b/i.test(sql)) {
    const attOk = likeFilter(sql, 'attname');
    const rows = pick(likeFilter(sql, 'n.nspname'), likeFilter(sql, 'c.relname')).flatMap(columnRows).filter((r) => !attOk || attOk.matches(String(r.attname)));
    // pgjdbc 42.7 also selects current_database() first, as TABLE_CAT
    return answer(/\bAS\s+current_database\b/i.test(sql) ? ['current_database', ...JDBC_COLUMNS] : JDBC_COLUMNS, rows);
  }
  // pgjdbc getTables
  if (/\bAS\s+"?TABLE_SCHEM\b/i.test(sql) && /\bAS\s+"?TABLE_TYPE\b/i.test(sql)) {
    const wantsTables = /relkind\s*(=|IN\s*\()\s*'r'/i.test(sql);
    return answer(names, wantsTables ? pick(likeFilter(sql, 'n.nspname'), likeFilter(sql, 'c.relname')).map(relationRow) : []);
  }
  // psql \d <table>: the columns of one relation, by the OID an earlier answer gave
  if (/\bFROM\s+pg_catalog\.pg_attribute\s+a\b/i.test(sql) && byOid) {
    const t = sorted.find((x) => tableOid(x) === Number(byOid[1]));
    return answer(names, t ? columnRows(t) : []);
  }
  // psql \d <table>: the relation's flags
  if (/\bFROM\s+pg_catalog\.pg_class\s+c\b/i.test(sql) && byOid && /\bc\.relchecks\b/i.test(sql)) {
    const t = sorted.find((x) => tableOid(x) === Number(byOid[1]));
    return answer(names, t ? [relationRow(t)] : []);
  }
  // psql \d, \dt, \dt <pattern>, and the OID look-up of \d <table>
  if (/\bFROM\s+pg_catalog\.pg_class\s+c\b/i.test(sql) && /\bpg_catalog\.pg_namespace\s+n\b/i.test(sql) && !byOid) {
    const kinds = /c\.relkind\s+IN\s*\(([^)]*)\)/i.exec(sql)?.[1];
    if (kinds !== undefined && !/'r'/.test(kinds)) return answer(names, []);
    return answer(names, pick(regexFilter(sql, 'n.nspname'), regexFilter(sql, 'c.relname')).map(relationRow));
  }
  // psql \dn: the schemas (domains) with at least one table the role may see
  if (/\bFROM\s+pg_catalog\.pg_namespace\s+n\b/i.test(sql) && !/\bpg_class\b/i.test(sql)) {
    const nameOk = regexFilter(sql, 'n.nspname');
    const schemas = [...new Set(sorted.map((t) => t.schema))].filter((s) => !nameOk || nameOk.matches(s));
    return answer(names, schemas.map((s) => ({ Name: s, Owner: 'shoal', nspname: s, oid: objectOid(`schema:${s}`) })));
  }
  return answer(names, []);
}
