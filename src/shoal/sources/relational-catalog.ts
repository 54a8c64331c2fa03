/**
 * Read a relational source's catalog through its driver (PostgreSQL `pg_catalog`, MySQL/MariaDB
 * `information_schema`, SQLite `pragma_table_info`): every user table and view with its columns,
 * declared types and primary key, in the source's column order. Read-only statements only.
 */
import { configTypeOfMysql, configTypeOfPostgres, configTypeOfSqlite } from './config-type-names.js';
import type { SourceDriver } from './source-driver.js';
import type { SchemaFilter, SourceColumnInfo, SourceSchema, SourceTableInfo } from './source-schema.js';

const PG_CATALOG = `
SELECT n.nspname, c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
       COALESCE((SELECT true FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary AND a.attnum = ANY(i.indkey)), false)
  FROM pg_attribute a
  JOIN pg_class c ON c.oid = a.attrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f') AND a.attnum > 0 AND NOT a.attisdropped
   AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%' AND n.nspname NOT LIKE 'pg_temp%'
   AND ($1::text IS NULL OR lower(n.nspname) = lower($1::text))
   AND ($2::text IS NULL OR lower(c.relname) = lower($2::text))
   AND has_table_privilege(c.oid, 'SELECT')
 ORDER BY n.nspname, c.relname, a.attnum`;

const MYSQL_CATALOG = `
SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, COLUMN_KEY
  FROM information_schema.COLUMNS
 WHERE TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')
   AND (? IS NULL OR LOWER(TABLE_SCHEMA) = LOWER(?))
   AND (? IS NULL OR LOWER(TABLE_NAME) = LOWER(?))
 ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION`;

const SQLITE_CATALOG = `
SELECT m.name, p.name, p.type, p.pk
  FROM sqlite_schema m JOIN pragma_table_info(m.name) p
 WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite_%'
   AND (? IS NULL OR lower(m.name) = lower(?))
 ORDER BY m.name, p.cid`;

const text = (v: unknown): string => (v === null || v === undefined ? '' : Buffer.isBuffer(v) ? v.toString('utf8') : String(v));

function group(rows: readonly { schema: string; table: string; column: SourceColumnInfo }[]): SourceTableInfo[] {
  const out = new Map<string, { schema: string; table: string; columns: SourceColumnInfo[] }>();
  for (const r of rows) {
    const k = `${r.schema}\u0000${r.table}`;
    let t = out.get(k);
    if (!t) out.set(k, (t = { schema: r.schema, table: r.table, columns: [] }));
    t.columns.push(r.column);
  }
  return [...out.values()];
}

/**
 * The catalog of the source behind `driver`. `database` limits MySQL to that database (its
 * default schema) when no schema filter is given; SQLite has the one schema `main`.
 */
export async function readRelationalCatalog(driver: SourceDriver, filter: SchemaFilter = {}, database?: string): Promise<SourceSchema> {
  const schema = filter.schema ?? null;
  const table = filter.table ?? null;
  let rows: { schema: string; table: string; column: SourceColumnInfo }[];
  switch (driver.dialect) {
    case 'postgresql': {
      const r = await driver.query(PG_CATALOG, [schema, table]);
      rows = r.rows.map((x) => ({
        schema: text(x[0]),
        table: text(x[1]),
        column: { name: text(x[2]), nativeType: text(x[3]), configType: configTypeOfPostgres(text(x[3])), ...(x[4] === true ? { primaryKey: true } : {}) },
      }));
      break;
    }
    case 'mysql': {
      const s = schema ?? database ?? null;
      const r = await driver.query(MYSQL_CATALOG, [s, s, table, table]);
      rows = r.rows.map((x) => ({
        schema: text(x[0]),
        table: text(x[1]),
        column: { name: text(x[2]), nativeType: text(x[3]), configType: configTypeOfMysql(text(x[3])), ...(text(x[4]) === 'PRI' ? { primaryKey: true } : {}) },
      }));
      break;
    }
    case 'sqlite': {
      const r = await driver.query(SQLITE_CATALOG, [table, table]);
      rows = r.rows.map((x) => ({
        schema: 'main',
        table: text(x[0]),
        column: { name: text(x[1]), nativeType: text(x[2]), configType: configTypeOfSqlite(text(x[2])), ...(Number(x[3]) > 0 ? { primaryKey: true } : {}) },
      }));
      break;
    }
  }
  return { sourceId: driver.sourceId, tables: group(rows) };
}
