/**
 * One wire form for numbers, whatever route served the query (S6 parity): drivers disagree —
 * DuckDB and `pg` give BIGINT and NUMERIC as exact text, SQLite gives REAL, mysql2 gives strings
 * for DECIMAL. Integers become JSON numbers when they fit in a double exactly, otherwise exact
 * decimal text; decimals become numbers when the number prints back to the same value, otherwise
 * exact text. Everything else passes through.
 */
import type { SourceColumn } from '../sources/source-driver.js';
import { typeClass } from '../sql/column-type.js';

export type NumberClass = 'integer' | 'numeric' | 'other';

/** Classify an engine or declared type name (`BIGINT`, `DECIMAL(10,2)`, `hugeint`, `integer`, …). */
export function numberClassOfType(type: string | undefined): NumberClass {
  const t = (type ?? '').toLowerCase().replace(/\(.*\)/, '').trim();
  if (/^(hugeint|uhugeint|ubigint|uinteger|usmallint|utinyint|int1|int16|int32|int64|int128)$/.test(t)) return 'integer';
  const c = typeClass(type);
  return c === 'integer' || c === 'numeric' ? c : 'other';
}

const PG_INTEGER_OIDS = new Set([20, 21, 23, 26]);
const PG_NUMERIC_OIDS = new Set([700, 701, 1700, 790]);
// mysql2 type codes: TINY 1, SHORT 2, LONG 3, LONGLONG 8, INT24 9, YEAR 13; DECIMAL 0, FLOAT 4, DOUBLE 5, NEWDECIMAL 246.
const MYSQL_INTEGER = new Set([1, 2, 3, 8, 9, 13]);
const MYSQL_NUMERIC = new Set([0, 4, 5, 246]);

/** Classify a direct-route column from the driver's own metadata. */
export function numberClassOfSourceColumn(c: SourceColumn): NumberClass {
  switch (c.driver) {
    case 'postgresql':
      return PG_INTEGER_OIDS.has(c.oid) ? 'integer' : PG_NUMERIC_OIDS.has(c.oid) ? 'numeric' : 'other';
    case 'mysql':
      return MYSQL_INTEGER.has(c.mysqlType) ? 'integer' : MYSQL_NUMERIC.has(c.mysqlType) ? 'numeric' : 'other';
    case 'sqlite':
      return c.declared === null ? 'other' : numberClassOfType(c.declared);
  }
}

const INTEGER_TEXT = /^-?\d+$/;
const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

/** Canonical decimal text: no leading zeros, no trailing fractional zeros, no "-0". */
function canonicalDecimal(text: string): string {
  let [int = '0', frac = ''] = text.replace(/^-/, '').split('.');
  int = int.replace(/^0+(?=\d)/, '');
  frac = frac.replace(/0+$/, '');
  const body = frac ? `${int}.${frac}` : int;
  return text.startsWith('-') && body !== '0' ? `-${body}` : body;
}

export function normalizeNumber(v: unknown, cls: NumberClass): unknown {
  if (cls === 'other' || v === null || v === undefined) return v;
  if (typeof v === 'bigint') v = v.toString();
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return v;
  if (cls === 'integer' && INTEGER_TEXT.test(v)) {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : canonicalDecimal(v);
  }
  if (DECIMAL_TEXT.test(v)) {
    const canon = canonicalDecimal(v);
    const n = Number(canon);
    return canonicalDecimal(String(n)) === canon && !String(n).includes('e') ? n : canon;
  }
  return v;
}

export function normalizeRows(rows: readonly (readonly unknown[])[], classes: readonly NumberClass[]): unknown[][] {
  if (classes.every((c) => c === 'other')) return rows as unknown[][];
  return rows.map((r) => r.map((v, i) => normalizeNumber(v, classes[i] ?? 'other')));
}
