/**
 * Type mapping from each source driver to DuckDB, for landing. A landed column is appended in a
 * *stage* type that JS values map onto exactly (booleans, 32-bit integers, doubles, bigints, or
 * text), then converted in SQL to its final DuckDB type, so bigints, decimals, dates, timestamps,
 * intervals, UUIDs and JSON arrive exactly as the source holds them.
 */
import type { SourceColumn } from '../../sources/source-driver.js';

/** The DuckDB type a JS value is appended as. */
export type StageType = 'BOOLEAN' | 'INTEGER' | 'DOUBLE' | 'BIGINT' | 'VARCHAR';

/** A final type, or `DECIMAL?`: a decimal whose precision and scale are inferred from the values. */
export type FinalType = string;

export interface LandingColumn {
  readonly name: string;
  readonly stage: StageType;
  readonly type: FinalType;
  /** SQL turning the staged column expression into the final type; absent when stage = final. */
  readonly convert?: (expr: string) => string;
}

const cast = (type: string) => (expr: string) => `CAST(${expr} AS ${type})`;
const unhexBlob = (expr: string) => `unhex(${expr})`;

function col(name: string, stage: StageType, type: FinalType, convert?: (expr: string) => string): LandingColumn {
  const c: LandingColumn = convert === undefined && stage === type ? { name, stage, type } : { name, stage, type, convert: convert ?? cast(type) };
  return Object.freeze(c);
}

/** PostgreSQL type OID → [stage, final DuckDB type]. Anything unlisted lands as VARCHAR text. */
export const PG_TYPES: Readonly<Record<number, readonly [StageType, FinalType]>> = Object.freeze({
  16: ['BOOLEAN', 'BOOLEAN'], // bool
  20: ['VARCHAR', 'BIGINT'], // int8
  21: ['INTEGER', 'SMALLINT'], // int2
  23: ['INTEGER', 'INTEGER'], // int4
  26: ['VARCHAR', 'UINTEGER'], // oid
  700: ['DOUBLE', 'FLOAT'], // float4
  701: ['DOUBLE', 'DOUBLE'], // float8
  1700: ['VARCHAR', 'DECIMAL?'], // numeric: precision from typmod, else from the values
  25: ['VARCHAR', 'VARCHAR'], // text
  1043: ['VARCHAR', 'VARCHAR'], // varchar
  1042: ['VARCHAR', 'VARCHAR'], // bpchar
  19: ['VARCHAR', 'VARCHAR'], // name
  1082: ['VARCHAR', 'DATE'],
  1083: ['VARCHAR', 'TIME'],
  1266: ['VARCHAR', 'TIMETZ'],
  1114: ['VARCHAR', 'TIMESTAMP'],
  1184: ['VARCHAR', 'TIMESTAMPTZ'],
  1186: ['VARCHAR', 'INTERVAL'],
  114: ['VARCHAR', 'JSON'], // json
  3802: ['VARCHAR', 'JSON'], // jsonb
  2950: ['VARCHAR', 'UUID'],
  17: ['VARCHAR', 'BLOB'], // bytea, text form \x…
});

/** DuckDB's widest exact decimal. */
const MAX_DECIMAL_WIDTH = 38;

export function pgLandingColumn(c: Extract<SourceColumn, { driver: 'postgresql' }>): LandingColumn {
  const mapped = PG_TYPES[c.oid] ?? (['VARCHAR', 'VARCHAR'] as const);
  const [stage, type] = mapped;
  if (c.oid === 1700 && c.typmod >= 4) {
    const p = ((c.typmod - 4) >> 16) & 0xffff;
    const s = (c.typmod - 4) & 0xffff;
    if (p >= 1 && p <= MAX_DECIMAL_WIDTH) return col(c.name, 'VARCHAR', `DECIMAL(${p},${s})`);
  }
  if (c.oid === 17) return col(c.name, 'VARCHAR', 'BLOB', (e) => `unhex(substr(${e}, 3))`);
  return col(c.name, stage, type);
}

/** mysql2 column type numbers (mysql2's `Types`). */
const MY = {
  DECIMAL: 0, TINY: 1, SHORT: 2, LONG: 3, FLOAT: 4, DOUBLE: 5, NULL: 6, TIMESTAMP: 7, LONGLONG: 8, INT24: 9,
  DATE: 10, TIME: 11, DATETIME: 12, YEAR: 13, NEWDATE: 14, VARCHAR: 15, BIT: 16, JSON: 245, NEWDECIMAL: 246,
  ENUM: 247, SET: 248, TINY_BLOB: 249, MEDIUM_BLOB: 250, LONG_BLOB: 251, BLOB: 252, VAR_STRING: 253, STRING: 254, GEOMETRY: 255,
} as const;

/** MySQL/MariaDB type → [stage, final] for the signed and unsigned variants. */
export const MYSQL_TYPES: Readonly<Record<number, readonly [StageType, FinalType, FinalType]>> = Object.freeze({
  [MY.TINY]: ['INTEGER', 'TINYINT', 'UTINYINT'],
  [MY.SHORT]: ['INTEGER', 'SMALLINT', 'USMALLINT'],
  [MY.INT24]: ['INTEGER', 'INTEGER', 'UINTEGER'],
  [MY.LONG]: ['DOUBLE', 'INTEGER', 'UINTEGER'],
  [MY.LONGLONG]: ['VARCHAR', 'BIGINT', 'UBIGINT'],
  [MY.YEAR]: ['INTEGER', 'SMALLINT', 'SMALLINT'],
  [MY.FLOAT]: ['DOUBLE', 'FLOAT', 'FLOAT'],
  [MY.DOUBLE]: ['DOUBLE', 'DOUBLE', 'DOUBLE'],
  [MY.DATE]: ['VARCHAR', 'DATE', 'DATE'],
  [MY.NEWDATE]: ['VARCHAR', 'DATE', 'DATE'],
  [MY.DATETIME]: ['VARCHAR', 'TIMESTAMP', 'TIMESTAMP'],
  [MY.TIMESTAMP]: ['VARCHAR', 'TIMESTAMP', 'TIMESTAMP'],
  [MY.TIME]: ['VARCHAR', 'TIME', 'TIME'],
  [MY.JSON]: ['VARCHAR', 'JSON', 'JSON'],
  [MY.ENUM]: ['VARCHAR', 'VARCHAR', 'VARCHAR'],
  [MY.SET]: ['VARCHAR', 'VARCHAR', 'VARCHAR'],
  [MY.NULL]: ['VARCHAR', 'VARCHAR', 'VARCHAR'],
});

const MYSQL_STRINGS = new Set<number>([MY.VARCHAR, MY.VAR_STRING, MY.STRING, MY.TINY_BLOB, MY.MEDIUM_BLOB, MY.LONG_BLOB, MY.BLOB]);

export function mysqlLandingColumn(c: Extract<SourceColumn, { driver: 'mysql' }>): LandingColumn {
  // TINYINT(1) is MySQL's BOOLEAN.
  if (c.mysqlType === MY.TINY && c.length === 1 && !c.unsigned) return col(c.name, 'INTEGER', 'BOOLEAN');
  if (c.mysqlType === MY.DECIMAL || c.mysqlType === MY.NEWDECIMAL) {
    // The reported length counts the digits, a decimal point when scale > 0, and a sign unless unsigned.
    const p = c.length - (c.decimals > 0 ? 1 : 0) - (c.unsigned ? 0 : 1);
    return p >= 1 && p <= MAX_DECIMAL_WIDTH && c.decimals <= p
      ? col(c.name, 'VARCHAR', `DECIMAL(${p},${c.decimals})`)
      : col(c.name, 'VARCHAR', 'DECIMAL?');
  }
  if (MYSQL_STRINGS.has(c.mysqlType)) return c.binary ? col(c.name, 'VARCHAR', 'BLOB', unhexBlob) : col(c.name, 'VARCHAR', 'VARCHAR');
  if (c.mysqlType === MY.BIT || c.mysqlType === MY.GEOMETRY) return col(c.name, 'VARCHAR', 'BLOB', unhexBlob);
  const mapped = MYSQL_TYPES[c.mysqlType];
  if (mapped === undefined) return col(c.name, 'VARCHAR', 'VARCHAR');
  return col(c.name, mapped[0], c.unsigned ? mapped[2] : mapped[1]);
}

/**
 * SQLite: types are per value. The declared type gives the intended DuckDB type (by SQLite's
 * affinity rules, plus the conventional BOOLEAN, DATE, DATETIME/TIMESTAMP, DECIMAL(p,s) and JSON
 * names); the values decide the stage, and a declared type the values don't honour falls back
 * to the type of the values themselves.
 */
export function sqliteLandingColumn(c: Extract<SourceColumn, { driver: 'sqlite' }>, values: readonly unknown[]): LandingColumn {
  let allInt = true;
  let allNum = true;
  let allBlob = true;
  let allBool = true;
  for (const v of values) {
    if (v === null || v === undefined) continue;
    if (typeof v !== 'bigint') allInt = false;
    if (typeof v !== 'bigint' && typeof v !== 'number') allNum = false;
    if (!(v instanceof Uint8Array)) allBlob = false;
    if (v !== 0n && v !== 1n) allBool = false;
  }
  const byValues: LandingColumn = allInt
    ? col(c.name, 'BIGINT', 'BIGINT')
    : allNum
      ? col(c.name, 'DOUBLE', 'DOUBLE')
      : allBlob
        ? col(c.name, 'VARCHAR', 'BLOB', unhexBlob)
        : col(c.name, 'VARCHAR', 'VARCHAR');
  const d = (c.declared ?? '').toUpperCase();
  if (d === '') return byValues;
  // No value to disagree with (an empty or all-NULL result): the declared type decides, so an empty
  // landing keeps the column's type and predicates over it still bind (DATE >= DATE, not BIGINT >= DATE).
  const empty = !values.some((v) => v !== null && v !== undefined);
  if (empty) {
    if (d === 'DATE') return col(c.name, 'VARCHAR', 'DATE');
    if (d === 'DATETIME' || d.startsWith('TIMESTAMP')) return col(c.name, 'VARCHAR', 'TIMESTAMP');
    if (d === 'JSON') return col(c.name, 'VARCHAR', 'JSON');
    if (d.includes('BLOB')) return col(c.name, 'VARCHAR', 'BLOB', unhexBlob);
  }
  const dec = /^(?:DECIMAL|NUMERIC)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)$/.exec(d);
  if (dec !== null && allNum) {
    const p = Number(dec[1]);
    const s = Number(dec[2] ?? '0');
    if (p >= 1 && p <= MAX_DECIMAL_WIDTH && s <= p) return col(c.name, byValues.stage, `DECIMAL(${p},${s})`);
  }
  if ((d === 'BOOLEAN' || d === 'BOOL') && allInt && allBool) return col(c.name, 'BIGINT', 'BOOLEAN');
  if (d === 'DATE' && byValues.stage === 'VARCHAR' && !allBlob) return col(c.name, 'VARCHAR', 'DATE');
  if ((d === 'DATETIME' || d.startsWith('TIMESTAMP')) && byValues.stage === 'VARCHAR' && !allBlob) return col(c.name, 'VARCHAR', 'TIMESTAMP');
  if (d === 'JSON' && byValues.stage === 'VARCHAR' && !allBlob) return col(c.name, 'VARCHAR', 'JSON');
  if (d.includes('INT')) return allInt ? col(c.name, 'BIGINT', 'BIGINT') : byValues;
  if (d.includes('CHAR') || d.includes('CLOB') || d.includes('TEXT')) return allBlob && values.some((v) => v != null) ? byValues : col(c.name, 'VARCHAR', 'VARCHAR');
  if (d.includes('REAL') || d.includes('FLOA') || d.includes('DOUB')) return allNum ? col(c.name, 'DOUBLE', 'DOUBLE') : byValues;
  return byValues;
}

/**
 * Pick a DECIMAL(p,s) that holds every value exactly, from their text. Values that are not plain
 * decimals (NaN, ±Infinity) make it DOUBLE; more than 38 digits make it VARCHAR (kept exact as text).
 */
export function inferDecimal(values: readonly unknown[]): string {
  let intDigits = 0;
  let scale = 0;
  for (const v of values) {
    if (v === null || v === undefined) continue;
    const m = /^[-+]?(\d*)(?:\.(\d*))?$/.exec(String(v));
    if (m === null) return 'DOUBLE';
    intDigits = Math.max(intDigits, (m[1] ?? '').replace(/^0+/, '').length);
    scale = Math.max(scale, (m[2] ?? '').length);
  }
  const width = intDigits + scale;
  if (width > MAX_DECIMAL_WIDTH) return 'VARCHAR';
  return `DECIMAL(${Math.max(width, 1)},${scale})`;
}

/** Map one driver column (with its fetched values, for SQLite and inferred decimals). */
export function landingColumnFor(c: SourceColumn, values: readonly unknown[]): LandingColumn {
  switch (c.driver) {
    case 'postgresql':
      return pgLandingColumn(c);
    case 'mysql':
      return mysqlLandingColumn(c);
    case 'sqlite':
      return sqliteLandingColumn(c, values);
  }
}
