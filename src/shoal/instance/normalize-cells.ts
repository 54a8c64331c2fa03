/**
 * One wire form for numbers, whatever route served the query (S6 parity): drivers disagree —
 * DuckDB and `pg` give BIGINT and NUMERIC as exact text, SQLite gives REAL, mysql2 gives strings
 * for DECIMAL. Integers become JSON numbers when they fit in a double exactly, otherwise exact
 * decimal text. Decimals (`numeric`, `decimal`) are always decimal text with their scale, as
 * PostgreSQL prints them and as Trino's protocol sends them (`numeric(12,2)` 851.50 is "851.50",
 * never 851.5). Floating-point values (`real`, `double precision`) are JSON numbers. Everything
 * else passes through.
 */
import type { SourceColumn } from '../sources/source-driver.js';
import { typeClass } from '../sql/column-type.js';

export type NumberClass = 'integer' | 'decimal' | 'float' | 'other';

/** How one result column's cells are written: its class and, for a decimal of declared scale, the scale. */
export interface CellClass {
  readonly kind: NumberClass;
  readonly scale?: number;
}

/** Classify an engine or declared type name (`BIGINT`, `DECIMAL(10,2)`, `hugeint`, `integer`, `double`, …). */
export function numberClassOfType(type: string | undefined): NumberClass {
  const t = (type ?? '').toLowerCase().replace(/\(.*\)/, '').trim();
  if (/^(hugeint|uhugeint|ubigint|uinteger|usmallint|utinyint|int1|int16|int32|int64|int128)$/.test(t)) return 'integer';
  const c = typeClass(type);
  if (c === 'integer') return 'integer';
  if (c === 'numeric') return /^(decimal|numeric|money)$/.test(t) ? 'decimal' : 'float';
  return 'other';
}

/** The declared scale of `numeric(p,s)` / `decimal(p,s)` (`numeric(p)` has scale 0); undefined otherwise. */
export function declaredScale(type: string | undefined): number | undefined {
  const m = /^\s*(?:numeric|decimal)\s*\(\s*\d+\s*(?:,\s*(\d+)\s*)?\)\s*$/i.exec(type ?? '');
  return m ? Number(m[1] ?? '0') : undefined;
}

const PG_INTEGER_OIDS = new Set([20, 21, 23, 26]);
const PG_FLOAT_OIDS = new Set([700, 701]);
const PG_DECIMAL_OIDS = new Set([1700, 790]);
// mysql2 type codes: TINY 1, SHORT 2, LONG 3, LONGLONG 8, INT24 9, YEAR 13; DECIMAL 0, FLOAT 4, DOUBLE 5, NEWDECIMAL 246.
const MYSQL_INTEGER = new Set([1, 2, 3, 8, 9, 13]);
const MYSQL_FLOAT = new Set([4, 5]);
const MYSQL_DECIMAL = new Set([0, 246]);

/** Classify a direct-route column from the driver's own metadata. */
export function numberClassOfSourceColumn(c: SourceColumn): NumberClass {
  switch (c.driver) {
    case 'postgresql':
      return PG_INTEGER_OIDS.has(c.oid) ? 'integer' : PG_DECIMAL_OIDS.has(c.oid) ? 'decimal' : PG_FLOAT_OIDS.has(c.oid) ? 'float' : 'other';
    case 'mysql':
      return MYSQL_INTEGER.has(c.mysqlType) ? 'integer' : MYSQL_DECIMAL.has(c.mysqlType) ? 'decimal' : MYSQL_FLOAT.has(c.mysqlType) ? 'float' : 'other';
    case 'sqlite':
      return c.declared === null ? 'other' : numberClassOfType(c.declared);
  }
}

/**
 * The class of a result column: a numeric reported (PostgreSQL) type decides — a `numeric`
 * column is decimal text on every route, even where the source or engine holds it as a double
 * (SQLite REAL), and a `bigint` one an integer even where a snapshot holds it as DECIMAL(38,0) —
 * and the driver's or engine's own type decides for every other column. `staticScale` is the
 * scale PostgreSQL prints a `numeric` expression with, when the plan knows it.
 */
export function cellClass(reportedType: string | undefined, runtime: NumberClass, staticScale?: number): CellClass {
  const reported = numberClassOfType(reportedType);
  if (reported === 'decimal') {
    const scale = declaredScale(reportedType) ?? staticScale;
    return scale === undefined ? { kind: 'decimal' } : { kind: 'decimal', scale };
  }
  if (runtime === 'other') return { kind: 'other' };
  return { kind: reported === 'other' ? runtime : reported };
}

const INTEGER_TEXT = /^[-+]?\d+$/;
const DECIMAL_TEXT = /^[-+]?(\d+(\.\d*)?|\.\d+)$/;

/** Canonical integer text: no sign for positives, no leading zeros, no "-0". */
function canonicalInteger(text: string): string {
  const body = text.replace(/^[-+]/, '').replace(/^0+(?=\d)/, '');
  return text.startsWith('-') && body !== '0' ? `-${body}` : body;
}

/** Decimal text with its scale kept: leading zeros and a plus sign dropped, padded to `scale` digits when shorter. */
function decimalText(text: string, scale: number | undefined): string {
  const negative = text.startsWith('-');
  let [int = '', frac = ''] = text.replace(/^[-+]/, '').split('.');
  int = int.replace(/^0+(?=\d)/, '') || '0';
  if (scale !== undefined && frac.length < scale) frac = frac.padEnd(scale, '0');
  const body = frac ? `${int}.${frac}` : int;
  return negative && /[1-9]/.test(body) ? `-${body}` : body;
}

/** A double as decimal text: with the declared scale when there is one, else its shortest exact form. */
function decimalOfNumber(v: number, scale: number | undefined): string {
  if (!Number.isFinite(v)) return String(v);
  if (scale !== undefined && Math.abs(v) < 1e21) return decimalText(v.toFixed(Math.min(scale, 100)), scale);
  const s = String(v);
  if (!/e/i.test(s)) return decimalText(s, scale);
  // exponent form: a double of 1e21 or more is an integer; a tiny one expands to its digits
  if (Math.abs(v) >= 1) return decimalText(BigInt(v).toString(), scale);
  return decimalText(v.toFixed(100).replace(/0+$/, ''), scale);
}

export function normalizeNumber(v: unknown, cls: NumberClass | CellClass): unknown {
  const c: CellClass = typeof cls === 'string' ? { kind: cls } : cls;
  if (c.kind === 'other' || v === null || v === undefined) return v;
  if (c.kind === 'decimal') {
    if (typeof v === 'bigint') return decimalText(v.toString(), c.scale);
    if (typeof v === 'number') return decimalOfNumber(v, c.scale);
    if (typeof v === 'string' && DECIMAL_TEXT.test(v)) return decimalText(v, c.scale);
    return v;
  }
  if (typeof v === 'bigint') v = v.toString();
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return v;
  if (c.kind === 'integer' && INTEGER_TEXT.test(v)) {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : canonicalInteger(v);
  }
  // a float as text (pg's float8 with extra_float_digits, SQLite REAL read as text): a number when it is one
  if (c.kind === 'float' && DECIMAL_TEXT.test(v)) return Number(v);
  return v;
}

export function normalizeRows(rows: readonly (readonly unknown[])[], classes: readonly (NumberClass | CellClass)[]): unknown[][] {
  const cs = classes.map((c) => (typeof c === 'string' ? { kind: c } : c));
  if (cs.every((c) => c.kind === 'other')) return rows as unknown[][];
  return rows.map((r) => r.map((v, i) => normalizeNumber(v, cs[i] ?? { kind: 'other' })));
}
