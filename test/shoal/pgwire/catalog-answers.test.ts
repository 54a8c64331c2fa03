/**
 * The catalog queries below are psql 15's and pgjdbc 42.7's own text (captured with `psql -E`
 * and from the wire); the answers come only from the tables given, i.e. what the role may see.
 */
import { describe, expect, it } from 'vitest';
import { answerCatalogQuery, isCatalogQuery, objectOid, selectListNames } from '../../../src/shoal/pgwire/catalog-answers.js';
import type { CatalogTableInfo } from '../../../src/shoal/server/query-service.js';

const TABLES: CatalogTableInfo[] = [
  { table: 'sales.orders', schema: 'sales', name: 'orders', columns: [{ name: 'id', type: 'integer', masked: false }, { name: 'email', type: 'varchar', masked: true }] },
  { table: 'ops.jobs', schema: 'ops', name: 'jobs', columns: [{ name: 'n', type: 'numeric(12,2)', masked: false }] },
];

const LIST = `SELECT n.nspname as "Schema",
  c.relname as "Name",
  CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' END as "Type",
  pg_catalog.pg_get_userbyid(c.relowner) as "Owner"
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam
WHERE c.relkind IN ('r','p','')
  AND n.nspname OPERATOR(pg_catalog.~) '^(sales)$' COLLATE pg_catalog.default
ORDER BY 1,2;`;

const LOOKUP = `SELECT c.oid,
  n.nspname,
  c.relname
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relname OPERATOR(pg_catalog.~) '^(orders)$' COLLATE pg_catalog.default
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY 2, 3;`;

const ATTRIBUTES = (oid: number) => `SELECT a.attname,
  pg_catalog.format_type(a.atttypid, a.atttypmod),
  (SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid, true)
   FROM pg_catalog.pg_attrdef d
   WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef),
  a.attnotnull,
  a.attidentity
FROM pg_catalog.pg_attribute a
WHERE a.attrelid = '${oid}' AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum;`;

describe('pg_catalog answers from the governed catalog', () => {
  it('recognises catalog queries and not data queries', () => {
    expect(isCatalogQuery(LIST)).toBe(true);
    expect(isCatalogQuery('SELECT id FROM sales.orders')).toBe(false);
  });

  it('names select-list items as PostgreSQL does', () => {
    expect(selectListNames(`SELECT a.attname, pg_catalog.format_type(a.x, a.y), (SELECT pg_catalog.pg_get_expr(d.b) FROM t), '' , c.oid AS "Oid", CASE WHEN x THEN 1 END FROM z`)).toEqual([
      'attname',
      'format_type',
      'pg_get_expr',
      '?column?',
      'Oid',
      'case',
    ]);
  });

  it('psql \\dt <schema>: only the tables of that schema the role sees', () => {
    const a = answerCatalogQuery(LIST, TABLES);
    expect(a.columns.map((c) => c.name)).toEqual(['Schema', 'Name', 'Type', 'Owner']);
    expect(a.rows).toEqual([['sales', 'orders', 'table', 'shoal']]);
    expect(answerCatalogQuery(LIST.replace("('r','p','')", "('v','')"), TABLES).rows).toEqual([]);
  });

  it('psql \\d <table>: the OID look-up, then the visible columns with their declared types', () => {
    const oid = objectOid('table:sales.orders');
    expect(answerCatalogQuery(LOOKUP, TABLES).rows).toEqual([[oid, 'sales', 'orders']]);
    const cols = answerCatalogQuery(ATTRIBUTES(oid), TABLES);
    expect(cols.rows).toEqual([
      ['id', 'integer', null, false, ''],
      ['email', 'varchar', null, false, ''],
    ]);
    expect(answerCatalogQuery(ATTRIBUTES(oid + 1), TABLES).rows).toEqual([]);
  });

  it('pgjdbc getTables with quoted upper-case aliases and LIKE patterns', () => {
    const sql = `SELECT current_database() AS "TABLE_CAT", n.nspname AS "TABLE_SCHEM", c.relname AS "TABLE_NAME", CASE WHEN true THEN 'TABLE' END AS "TABLE_TYPE", d.description AS "REMARKS" FROM pg_catalog.pg_namespace n, pg_catalog.pg_class c WHERE c.relnamespace = n.oid AND n.nspname LIKE  'o%'  AND c.relname LIKE  '%'  AND (false OR ( c.relkind = 'r' AND n.nspname !~ '^pg_' ))`;
    expect(answerCatalogQuery(sql, TABLES).rows).toEqual([[null, 'ops', 'jobs', 'TABLE', null]]);
  });

  it('an unknown catalog query is empty, with the columns it names', () => {
    const a = answerCatalogQuery(`SELECT pol.polname, pol.polpermissive FROM pg_catalog.pg_policy pol WHERE pol.polrelid = '1'`, TABLES);
    expect(a.columns.map((c) => c.name)).toEqual(['polname', 'polpermissive']);
    expect(a.rows).toEqual([]);
  });
});
