/** Source types → config type names: what `shoal introspect` writes as data_type. */
import { describe, expect, it } from 'vitest';
import { configTypeOfDuckDb, configTypeOfMysql, configTypeOfPostgres, configTypeOfSqlite } from '../../../src/shoal/sources/config-type-names.js';
import { typeClass } from '../../../src/shoal/sql/column-type.js';

describe('config type names', () => {
  it('PostgreSQL format_type text', () => {
    expect(['numeric(12,2)', 'timestamp(3) with time zone', 'time without time zone', 'integer[]', 'citext', 'interval day'].map(configTypeOfPostgres)).toEqual([
      'decimal(12,2)', 'timestamptz', 'time', 'integer[]', 'varchar', 'interval',
    ]);
  });

  it('MySQL/MariaDB COLUMN_TYPE, unsigned widening so every value fits', () => {
    expect(['tinyint(1)', 'tinyint(1) unsigned', 'smallint(5) unsigned', 'int(11)', 'int(10) unsigned', 'bigint(20) unsigned', 'decimal(10,0)', "enum('a','b')", 'varbinary(8)', 'year(4)'].map(configTypeOfMysql)).toEqual([
      'boolean', 'smallint', 'integer', 'integer', 'bigint', 'decimal(20,0)', 'decimal(10,0)', 'varchar', 'blob', 'smallint',
    ]);
  });

  it('SQLite declared types by landing rules: TEXT stays varchar whatever it holds', () => {
    expect(['INTEGER', 'TEXT', 'DATETIME', 'timestamp', 'date', 'NUMERIC(12,2)', 'NUMERIC', 'VARCHAR(40)', 'BLOB', '', 'BOOLEAN', 'REAL'].map(configTypeOfSqlite)).toEqual([
      'bigint', 'varchar', 'timestamp', 'timestamp', 'date', 'decimal(12,2)', 'double', 'varchar', 'blob', 'varchar', 'boolean', 'double',
    ]);
  });

  it('DuckDB types (files, tik)', () => {
    expect(['VARCHAR[]', 'DECIMAL(18,3)', 'TIMESTAMP WITH TIME ZONE', 'UBIGINT', 'HUGEINT', 'STRUCT(a INTEGER)'].map(configTypeOfDuckDb)).toEqual([
      'varchar[]', 'decimal(18,3)', 'timestamptz', 'decimal(20,0)', 'decimal(38,0)', 'varchar',
    ]);
  });

  it('every scalar name written is one the SQL layer classifies (masks and literals work on it)', () => {
    const names = ['smallint', 'integer', 'bigint', 'decimal(12,2)', 'decimal', 'real', 'double', 'boolean', 'varchar', 'date', 'time', 'timetz', 'timestamp', 'timestamptz', 'json', 'uuid'];
    for (const n of names) expect([n, typeClass(n)]).not.toEqual([n, 'other']);
  });
});
