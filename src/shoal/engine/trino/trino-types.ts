/**
 * Types between DuckDB, Parquet and Trino. Two directions:
 * - writing: a DuckDB column (a landed source table, a file source read by DuckDB) is written to
 *   Parquet in a form the Trino hive connector reads, and declared in Trino with the matching type;
 * - reading: a Trino result cell (lossless JSON) becomes the engine contract's Cell, rendered as the
 *   DuckDB engine renders it, and Trino's type text becomes the DuckDB-style type name, so the rest
 *   of shoal (result typing, number classes, caches) sees one engine contract.
 */
import type { Cell } from '../engine.js';
import { JsonNumber, type LosslessJson, plainJson } from './lossless-json.js';

/** How a DuckDB column is written to Parquet (`cast`, a DuckDB type) and declared in Trino (`trino`). */
export interface ParquetColumnPlan {
  readonly cast?: string;
  readonly trino: string;
}

/** The Parquet/Trino plan for a DuckDB type name (`INTEGER`, `DECIMAL(12,2)`, `TIMESTAMP WITH TIME ZONE`, …). */
export function parquetPlanFor(duckType: string): ParquetColumnPlan {
  const t = duckType.toUpperCase().trim();
  const dec = /^DECIMAL\((\d+),\s*(\d+)\)$/.exec(t);
  if (dec) return { trino: `decimal(${dec[1]}, ${dec[2]})` };
  switch (t) {
    case 'BOOLEAN': return { trino: 'boolean' };
    case 'TINYINT': return { trino: 'tinyint' };
    case 'SMALLINT': return { trino: 'smallint' };
    case 'INTEGER': return { trino: 'integer' };
    case 'BIGINT': return { trino: 'bigint' };
    // unsigned and 128-bit integers have no Parquet/Hive twin: widen
    case 'UTINYINT': return { cast: 'SMALLINT', trino: 'smallint' };
    case 'USMALLINT': return { cast: 'INTEGER', trino: 'integer' };
    case 'UINTEGER': return { cast: 'BIGINT', trino: 'bigint' };
    case 'UBIGINT': return { cast: 'DECIMAL(20,0)', trino: 'decimal(20, 0)' };
    // DuckDB writes HUGEINT to Parquet as DOUBLE (lossy): write it as DECIMAL(38,0)
    case 'HUGEINT': return { cast: 'DECIMAL(38,0)', trino: 'decimal(38, 0)' };
    case 'FLOAT': case 'REAL': return { trino: 'real' };
    case 'DOUBLE': return { trino: 'double' };
    case 'DATE': return { trino: 'date' };
    case 'TIMESTAMP': return { trino: 'timestamp(6)' };
    case 'TIMESTAMP_MS': case 'TIMESTAMP_S': case 'TIMESTAMP_NS': return { cast: 'TIMESTAMP', trino: 'timestamp(6)' };
    // Hive has no zoned timestamp; the engines both run in UTC, so store the UTC wall time
    case 'TIMESTAMP WITH TIME ZONE': return { cast: 'TIMESTAMP', trino: 'timestamp(6)' };
    case 'BLOB': return { trino: 'varbinary' };
    case 'VARCHAR': return { trino: 'varchar' };
    default:
      // JSON, UUID, TIME, INTERVAL, nested types: their text form (as the DuckDB engine renders them)
      return { cast: 'VARCHAR', trino: 'varchar' };
  }
}

/** Trino's type text (`decimal(12, 2)`, `varchar(5)`, `timestamp(6) with time zone`) as a DuckDB-style name. */
export function engineTypeName(trinoType: string): string {
  const t = trinoType.toLowerCase().trim();
  const dec = /^decimal\((\d+),\s*(\d+)\)$/.exec(t);
  if (dec) return `DECIMAL(${dec[1]},${dec[2]})`;
  if (/^(varchar|char)(\(\d+\))?$/.test(t)) return 'VARCHAR';
  if (/^timestamp(\(\d+\))? with time zone$/.test(t)) return 'TIMESTAMP WITH TIME ZONE';
  if (/^timestamp(\(\d+\))?$/.test(t)) return 'TIMESTAMP';
  if (/^time(\(\d+\))?( with time zone)?$/.test(t)) return 'TIME';
  const arr = /^array\((.*)\)$/.exec(t);
  if (arr) return `${engineTypeName(arr[1]!)}[]`;
  switch (t) {
    case 'boolean': return 'BOOLEAN';
    case 'tinyint': return 'TINYINT';
    case 'smallint': return 'SMALLINT';
    case 'integer': return 'INTEGER';
    case 'bigint': return 'BIGINT';
    case 'real': return 'FLOAT';
    case 'double': return 'DOUBLE';
    case 'date': return 'DATE';
    case 'varbinary': return 'BLOB';
    case 'json': return 'JSON';
    case 'uuid': return 'UUID';
    case 'unknown': return 'NULL';
    default:
      if (t.startsWith('interval')) return 'INTERVAL';
      return t.toUpperCase();
  }
}

/** `2024-01-02 03:04:05.120000` → `2024-01-02 03:04:05.12` (DuckDB drops trailing zeros and a bare dot). */
function trimFraction(text: string): string {
  return text.replace(/(\d{2}:\d{2}:\d{2})\.(\d*?)0+(?=$|\s|[+-])/, (_m, hms: string, frac: string) => (frac === '' ? hms : `${hms}.${frac}`));
}

function numberCell(v: LosslessJson): Cell {
  if (v instanceof JsonNumber) return Number(v.text);
  return v as Cell; // "NaN", "Infinity", "-Infinity" arrive as strings already
}

/** One Trino result cell as the engine contract's Cell, rendered as the DuckDB engine renders it. */
export function toCell(v: LosslessJson, trinoType: string): Cell {
  if (v === null) return null;
  const t = trinoType.toLowerCase().trim();
  if (t === 'tinyint' || t === 'smallint' || t === 'integer' || t === 'real' || t === 'double') return numberCell(v);
  if (t === 'bigint' || t.startsWith('decimal')) return v instanceof JsonNumber ? v.text : (v as Cell);
  if (/^timestamp(\(\d+\))? with time zone$/.test(t) && typeof v === 'string') {
    // Trino: `2024-01-02 03:04:05.000000 UTC`; DuckDB: `2024-01-02 03:04:05+00`
    return trimFraction(v.replace(/ UTC$/, '+00'));
  }
  if ((/^timestamp/.test(t) || /^time/.test(t)) && typeof v === 'string') return trimFraction(v);
  if (t === 'varbinary' && typeof v === 'string') return Buffer.from(v, 'base64').toString('utf8');
  const arr = /^array\((.*)\)$/.exec(t);
  if (arr && Array.isArray(v)) return v.map((x: LosslessJson) => toCell(x, arr[1]!));
  if (v instanceof JsonNumber) return Number(v.text);
  return plainJson(v) as Cell;
}
