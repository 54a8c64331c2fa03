/**
 * Source type → config type name, per source kind. The config's names are PostgreSQL-flavoured
 * (`integer`, `bigint`, `decimal(p,s)`, `varchar`, `timestamp`, `timestamptz`, …) and say what the
 * value is once it reaches shoal: each mapping follows how that source's rows are landed or
 * scanned (src/shoal/engine/duckdb/duckdb-types.ts), so a SQLite `TEXT` column holding dates is
 * `varchar` — which is what a mask or a comparison on it will meet.
 */

/** PostgreSQL `format_type()` text → config type. */
export function configTypeOfPostgres(formatted: string): string {
  const t = formatted.trim().toLowerCase();
  if (t.endsWith('[]')) return `${configTypeOfPostgres(t.slice(0, -2))}[]`;
  const dec = /^numeric\((\d+),(\d+)\)$/.exec(t);
  if (dec) return `decimal(${dec[1]},${dec[2]})`;
  if (t === 'numeric') return 'decimal';
  if (t === 'smallint') return 'smallint';
  if (t === 'integer') return 'integer';
  if (t === 'bigint') return 'bigint';
  if (t === 'real') return 'real';
  if (t === 'double precision') return 'double';
  if (t === 'boolean') return 'boolean';
  if (t === 'date') return 'date';
  if (/^time(\(\d+\))? without time zone$/.test(t)) return 'time';
  if (/^time(\(\d+\))? with time zone$/.test(t)) return 'timetz';
  if (/^timestamp(\(\d+\))? without time zone$/.test(t)) return 'timestamp';
  if (/^timestamp(\(\d+\))? with time zone$/.test(t)) return 'timestamptz';
  if (/^interval/.test(t)) return 'interval';
  if (t === 'json' || t === 'jsonb') return 'json';
  if (t === 'uuid') return 'uuid';
  if (t === 'bytea') return 'blob';
  // text, varchar(n), char(n), name, citext, enums and anything else land as text
  return 'varchar';
}

/** MySQL/MariaDB `information_schema.columns.COLUMN_TYPE` (e.g. `int(10) unsigned`, `tinyint(1)`) → config type. */
export function configTypeOfMysql(columnType: string): string {
  const t = columnType.trim().toLowerCase();
  const unsigned = /\bunsigned\b/.test(t);
  const base = /^[a-z]+/.exec(t)?.[0] ?? t;
  if (/^tinyint\(1\)/.test(t) && !unsigned) return 'boolean';
  const dec = /^(?:decimal|numeric)\((\d+)(?:,(\d+))?\)/.exec(t);
  if (dec) return `decimal(${dec[1]},${dec[2] ?? '0'})`;
  switch (base) {
    case 'tinyint':
      return 'smallint';
    case 'smallint':
      return unsigned ? 'integer' : 'smallint';
    case 'mediumint':
      return 'integer';
    case 'int':
    case 'integer':
      return unsigned ? 'bigint' : 'integer';
    case 'bigint':
      return unsigned ? 'decimal(20,0)' : 'bigint';
    case 'decimal':
    case 'numeric':
      return 'decimal';
    case 'float':
      return 'real';
    case 'double':
    case 'real':
      return 'double';
    case 'year':
      return 'smallint';
    case 'date':
      return 'date';
    case 'datetime':
    case 'timestamp':
      return 'timestamp';
    case 'time':
      return 'time';
    case 'json':
      return 'json';
    case 'binary':
    case 'varbinary':
    case 'tinyblob':
    case 'blob':
    case 'mediumblob':
    case 'longblob':
    case 'bit':
    case 'geometry':
      return 'blob';
    default:
      // char, varchar, text kinds, enum, set
      return 'varchar';
  }
}

/**
 * SQLite declared type → config type. SQLite types are per value; the declared type is what
 * landing goes by (with the conventional BOOLEAN, DATE, DATETIME/TIMESTAMP, DECIMAL(p,s) and JSON
 * names), so `TEXT` holding dates stays `varchar`. No declared type: the values decide (`varchar`
 * is the safe name).
 */
export function configTypeOfSqlite(declared: string | null | undefined): string {
  const d = (declared ?? '').trim().toUpperCase();
  if (d === '') return 'varchar';
  if (d === 'BOOLEAN' || d === 'BOOL') return 'boolean';
  if (d === 'DATE') return 'date';
  if (d === 'DATETIME' || d.startsWith('TIMESTAMP')) return 'timestamp';
  if (d === 'JSON') return 'json';
  const dec = /^(?:DECIMAL|NUMERIC)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)$/.exec(d);
  if (dec) return `decimal(${dec[1]},${dec[2] ?? '0'})`;
  // SQLite's affinity rules, in their order
  if (d.includes('INT')) return 'bigint';
  if (d.includes('CHAR') || d.includes('CLOB') || d.includes('TEXT')) return 'varchar';
  if (d.includes('BLOB')) return 'blob';
  if (d.includes('REAL') || d.includes('FLOA') || d.includes('DOUB')) return 'double';
  return 'double'; // NUMERIC affinity: numbers land as DOUBLE
}

/** DuckDB type text (`DESCRIBE`, file sources and tik) → config type. */
export function configTypeOfDuckDb(type: string): string {
  const t = type.trim().toUpperCase();
  if (t.endsWith('[]')) return `${configTypeOfDuckDb(t.slice(0, -2))}[]`;
  const dec = /^DECIMAL\((\d+),\s*(\d+)\)$/.exec(t);
  if (dec) return `decimal(${dec[1]},${dec[2]})`;
  switch (t) {
    case 'TINYINT':
    case 'SMALLINT':
    case 'UTINYINT':
      return 'smallint';
    case 'USMALLINT':
    case 'INTEGER':
      return 'integer';
    case 'UINTEGER':
    case 'BIGINT':
      return 'bigint';
    case 'UBIGINT':
      return 'decimal(20,0)';
    case 'HUGEINT':
    case 'UHUGEINT':
      return 'decimal(38,0)';
    case 'FLOAT':
      return 'real';
    case 'DOUBLE':
      return 'double';
    case 'BOOLEAN':
      return 'boolean';
    case 'DATE':
      return 'date';
    case 'TIME':
      return 'time';
    case 'TIME WITH TIME ZONE':
      return 'timetz';
    case 'TIMESTAMP':
    case 'TIMESTAMP_S':
    case 'TIMESTAMP_MS':
    case 'TIMESTAMP_NS':
      return 'timestamp';
    case 'TIMESTAMP WITH TIME ZONE':
      return 'timestamptz';
    case 'INTERVAL':
      return 'interval';
    case 'JSON':
      return 'json';
    case 'UUID':
      return 'uuid';
    case 'BLOB':
      return 'blob';
    default:
      return 'varchar';
  }
}
