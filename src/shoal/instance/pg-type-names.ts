/**
 * Result column types named as PostgreSQL names them, whatever route ran the query: when the
 * plan cannot tell a column's type, the engine's (DuckDB) or the source driver's own type is
 * reported under its PostgreSQL name (`DECIMAL(12,2)` is `numeric`, `TIMESTAMP WITH TIME ZONE`
 * is `timestamptz`), so the engine and a direct route report one vocabulary.
 */
import type { SourceColumn } from '../sources/source-driver.js';

const DUCKDB: Readonly<Record<string, string>> = {
  BOOLEAN: 'boolean', TINYINT: 'smallint', SMALLINT: 'smallint', INTEGER: 'integer', BIGINT: 'bigint', HUGEINT: 'numeric',
  UTINYINT: 'smallint', USMALLINT: 'integer', UINTEGER: 'bigint', UBIGINT: 'numeric', UHUGEINT: 'numeric',
  FLOAT: 'real', DOUBLE: 'double precision', VARCHAR: 'text', BLOB: 'bytea', DATE: 'date', TIME: 'time', 'TIME WITH TIME ZONE': 'timetz',
  TIMESTAMP: 'timestamp', TIMESTAMP_S: 'timestamp', TIMESTAMP_MS: 'timestamp', TIMESTAMP_NS: 'timestamp',
  'TIMESTAMP WITH TIME ZONE': 'timestamptz', INTERVAL: 'interval', UUID: 'uuid', JSON: 'json',
};

/** A DuckDB type name (as the engine reports it) under its PostgreSQL name; other types pass through lower-cased. */
export function pgTypeOfEngine(type: string): string {
  const t = type.trim().toUpperCase();
  // only a column or a cast carries a typmod in PostgreSQL, and the plan types those itself:
  // an expression the plan cannot type is a plain `numeric` whatever DECIMAL(p,s) DuckDB picked
  if (/^DECIMAL\(\d+,\s*\d+\)$/.test(t)) return 'numeric';
  if (t.endsWith('[]')) return `${pgTypeOfEngine(t.slice(0, -2))}[]`;
  return DUCKDB[t] ?? type.toLowerCase();
}

const PG_OIDS: Readonly<Record<number, string>> = {
  16: 'boolean', 17: 'bytea', 18: 'char', 19: 'name', 20: 'bigint', 21: 'smallint', 23: 'integer', 25: 'text', 26: 'oid', 114: 'json',
  700: 'real', 701: 'double precision', 790: 'money', 1042: 'bpchar', 1043: 'varchar', 1082: 'date', 1083: 'time', 1114: 'timestamp',
  1184: 'timestamptz', 1186: 'interval', 1266: 'timetz', 1700: 'numeric', 2950: 'uuid', 3802: 'jsonb',
};

// mysql2 type codes (see duckdb-types.ts MY)
const MYSQL: Readonly<Record<number, string>> = {
  1: 'smallint', 2: 'smallint', 3: 'integer', 4: 'real', 5: 'double precision', 7: 'timestamp', 8: 'bigint', 9: 'integer', 10: 'date',
  11: 'time', 12: 'timestamp', 13: 'smallint', 14: 'date', 15: 'text', 245: 'json', 247: 'text', 248: 'text', 253: 'text', 254: 'text',
};

/** A direct-route column's driver type under its PostgreSQL name, or undefined when the driver cannot tell. */
export function pgTypeOfSource(c: SourceColumn): string | undefined {
  switch (c.driver) {
    case 'postgresql': {
      if (c.oid === 1700 && c.typmod >= 4) return `numeric(${((c.typmod - 4) >> 16) & 0xffff},${(c.typmod - 4) & 0xffff})`;
      return PG_OIDS[c.oid];
    }
    case 'mysql': {
      if (c.mysqlType === 0 || c.mysqlType === 246) {
        const p = c.length - (c.decimals > 0 ? 1 : 0) - (c.unsigned ? 0 : 1);
        return p >= 1 ? `numeric(${p},${c.decimals})` : 'numeric';
      }
      if (c.mysqlType === 8 && c.unsigned) return 'numeric';
      if ([249, 250, 251, 252].includes(c.mysqlType)) return c.binary ? 'bytea' : 'text';
      return MYSQL[c.mysqlType];
    }
    case 'sqlite':
      return c.declared ? c.declared.toLowerCase() : undefined;
  }
}
