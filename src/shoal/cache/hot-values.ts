/**
 * A hot table's rows as a DuckDB relation body: `SELECT CAST(v.c1 AS <type>) AS "<col>", … FROM
 * (VALUES ('…', …), …) AS v(c1, …)` (or, past VALUES_MAX_ROWS rows, the same casts over one JSON
 * text literal unnested into rows). Every cell is text (a standard string literal, quotes
 * doubled) or NULL, cast to the type the engine reported for the live relation, so the inlined
 * relation has the same column types, number classes and equality semantics as the live one.
 *
 * The text is generated here from cached values, never from a caller's SQL; identifiers are
 * quoted and types come from an allowlist, so nothing in a cell or a name can become SQL.
 */
import { createHash } from 'node:crypto';
import type { Cell, ColumnInfo } from '../engine/engine.js';

/** Engine (DuckDB) types whose cells round-trip exactly through text and a CAST (not BLOB: its cell text is ambiguous). */
const SCALAR_TYPE =
  /^(BOOLEAN|TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL\(\d{1,2},\d{1,2}\)|VARCHAR|DATE|TIME|TIMESTAMP|TIMESTAMP_S|TIMESTAMP_MS|TIMESTAMP_NS|TIMESTAMP WITH TIME ZONE|TIME WITH TIME ZONE|INTERVAL|UUID|JSON)$/;

/** Whether a column of this engine type can be cached (nested types are not: they are served live). */
export function isHotCacheableType(type: string): boolean {
  return SCALAR_TYPE.test(type.trim().toUpperCase());
}

/** The relation name a hot table is bound to in one query: a plain identifier no caller can name. */
export function hotRelationName(tableKey: string): string {
  const digest = createHash('sha256').update(tableKey).digest('hex').slice(0, 8);
  return `__shoal_hot_${tableKey.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 40)}_${digest}`;
}

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;
const quoteText = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** Why a value cannot be cached, or undefined when it can. */
export function uncacheableCell(cell: Cell, type: string): string | undefined {
  if (cell === null) return undefined;
  if (type.toUpperCase() === 'INTERVAL') return isInterval(cell) ? undefined : 'an INTERVAL cell of an unknown shape';
  if (typeof cell === 'object') return `a nested value in a ${type} column`;
  if (typeof cell === 'string' && cell.includes('\u0000')) return 'a string with a NUL character';
  if (typeof cell === 'number' && !Number.isFinite(cell)) return 'a non-finite number';
  return undefined;
}

function isInterval(cell: Cell): cell is { months: number; days: number; micros: string | number } {
  if (cell === null || typeof cell !== 'object' || Array.isArray(cell)) return false;
  const o = cell as Record<string, Cell>;
  return typeof o.months === 'number' && typeof o.days === 'number' && (typeof o.micros === 'string' || typeof o.micros === 'number');
}

/** One cell as the text a CAST to its column type reads back as the same value (null: SQL NULL). */
function cellText(cell: Cell, type: string): string | null {
  if (cell === null) return null;
  if (isInterval(cell)) return `${cell.months} months ${cell.days} days ${String(cell.micros)} microseconds`;
  if (typeof cell === 'boolean') return cell ? 'true' : 'false';
  if (typeof cell === 'number') return String(cell);
  if (typeof cell === 'string') return cell;
  throw new Error(`hot-values: uncacheable cell in a ${type} column`);
}

/**
 * Up to this many rows are inlined as `VALUES` tuples; larger tables as one JSON text literal
 * unnested into rows, because DuckDB binds every VALUES expression one by one (measured: about
 * 0.1 ms per 4-column row, ten times the cost of the single literal).
 */
export const VALUES_MAX_ROWS = 64;

/**
 * The SELECT a hot table's relation is bound to. `columns` are the live relation's columns (names
 * and engine types); `rows` its cells in that order. Either form casts every column to its live
 * type; an empty table keeps its column types.
 */
export function hotRelationBody(columns: readonly ColumnInfo[], rows: readonly (readonly Cell[])[], form: 'values' | 'json' = rows.length <= VALUES_MAX_ROWS ? 'values' : 'json'): string {
  if (rows.length === 0) {
    return `SELECT ${columns.map((c) => `CAST(NULL AS ${c.type}) AS ${quoteIdent(c.name)}`).join(', ')} WHERE false`;
  }
  const texts = rows.map((r) => columns.map((c, i) => cellText(r[i] ?? null, c.type)));
  if (form === 'json') {
    const casts = columns.map((c, i) => `CAST(v.r[${i + 1}] AS ${c.type}) AS ${quoteIdent(c.name)}`).join(', ');
    return `SELECT ${casts} FROM (SELECT unnest(CAST(CAST(${quoteText(JSON.stringify(texts))} AS JSON) AS VARCHAR[][])) AS r) AS v`;
  }
  const casts = columns.map((c, i) => `CAST(v.c${i + 1} AS ${c.type}) AS ${quoteIdent(c.name)}`).join(', ');
  const tuples = texts.map((r) => `(${r.map((t) => (t === null ? 'NULL' : quoteText(t))).join(', ')})`);
  const names = columns.map((_, i) => `c${i + 1}`).join(', ');
  return `SELECT ${casts} FROM (VALUES ${tuples.join(', ')}) AS v(${names})`;
}
