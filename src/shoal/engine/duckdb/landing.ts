/**
 * Append fetched source rows into a per-query temp table of one DuckDB connection. Rows are
 * appended in stage types through data chunks, then converted in SQL to their final types
 * (see duckdb-types.ts). Temp tables belong to the connection: they disappear with it.
 */
import { BIGINT, BOOLEAN, DOUBLE, DuckDBDataChunk, INTEGER, VARCHAR } from '@duckdb/node-api';
import type { DuckDBConnection, DuckDBType, DuckDBValue } from '@duckdb/node-api';
import type { ColumnInfo } from '../engine.js';
import { ShoalError } from '../../errors.js';
import { ident } from './duckdb-sql.js';
import { inferDecimal, type LandingColumn, type StageType } from './duckdb-types.js';

const STAGE: Readonly<Record<StageType, DuckDBType>> = { BOOLEAN, INTEGER, DOUBLE, BIGINT, VARCHAR };
const CHUNK = 2048;

function toStage(v: unknown, stage: StageType): DuckDBValue {
  if (v === null || v === undefined) return null;
  switch (stage) {
    case 'VARCHAR':
      if (typeof v === 'string') return v;
      if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
      if (typeof v === 'object') return JSON.stringify(v);
      return String(v);
    case 'INTEGER':
      return typeof v === 'number' ? v : typeof v === 'boolean' ? (v ? 1 : 0) : Number(v);
    case 'DOUBLE':
      return typeof v === 'number' ? v : Number(v);
    case 'BIGINT':
      return typeof v === 'bigint' ? v : BigInt(typeof v === 'number' ? Math.trunc(v) : String(v));
    case 'BOOLEAN':
      return typeof v === 'boolean' ? v : v === 't' || v === 'true' || v === 1 || v === 1n;
  }
}

/** Settle inferred types (`DECIMAL?`) against the values fetched. */
export function settleColumns(columns: readonly LandingColumn[], rows: readonly (readonly unknown[])[]): LandingColumn[] {
  return columns.map((c, i) => {
    if (c.type !== 'DECIMAL?') return c;
    const type = inferDecimal(rows.map((r) => r[i]));
    return { ...c, type, convert: (e: string) => `CAST(${e} AS ${type})` };
  });
}

/**
 * Create `temp.main.<table>` on `conn` holding `rows`, typed as `columns` say. Returns the final
 * column types. A value the final type cannot hold is a SOURCE_TYPE_MISMATCH naming the source.
 */
export async function landRows(
  conn: DuckDBConnection,
  table: string,
  sourceId: string,
  columns: readonly LandingColumn[],
  rows: readonly (readonly unknown[])[],
): Promise<ColumnInfo[]> {
  const cols = settleColumns(columns, rows);
  const direct = cols.every((c) => c.convert === undefined);
  const stageTable = direct ? table : `${table}__stage`;
  const defs = cols.map((c) => `${ident(c.name)} ${c.stage}`).join(', ');
  await conn.run(`CREATE OR REPLACE TEMP TABLE ${ident(stageTable)} (${defs === '' ? '"_shoal_one" INTEGER' : defs})`);
  if (cols.length > 0 && rows.length > 0) {
    const appender = await conn.createAppender(stageTable, 'main', 'temp');
    try {
      const types = cols.map((c) => STAGE[c.stage]);
      for (let start = 0; start < rows.length; start += CHUNK) {
        const end = Math.min(rows.length, start + CHUNK);
        const columnsData: DuckDBValue[][] = cols.map(() => new Array<DuckDBValue>(end - start));
        for (let r = start; r < end; r++) {
          const row = rows[r] as readonly unknown[];
          for (let c = 0; c < cols.length; c++) {
            (columnsData[c] as DuckDBValue[])[r - start] = toStage(row[c], (cols[c] as LandingColumn).stage);
          }
        }
        const chunk = DuckDBDataChunk.create(types, end - start);
        chunk.setColumns(columnsData);
        appender.appendDataChunk(chunk);
      }
    } finally {
      appender.closeSync();
    }
  } else if (cols.length === 0 && rows.length > 0) {
    // A projection of no columns (e.g. count(*)): only the row count matters.
    await conn.run(`INSERT INTO temp.main.${ident(stageTable)} SELECT 1 FROM range(${rows.length})`);
  }
  if (!direct) {
    const select = cols.map((c) => `${c.convert ? c.convert(ident(c.name)) : ident(c.name)} AS ${ident(c.name)}`).join(', ');
    try {
      await conn.run(`CREATE OR REPLACE TEMP TABLE ${ident(table)} AS SELECT ${select} FROM temp.main.${ident(stageTable)}`);
    } catch (e) {
      throw new ShoalError('SOURCE_TYPE_MISMATCH', `source "${sourceId}" returned a value its column type cannot hold`, {
        where: `sources.${sourceId}`,
        hint: `check the source's data in ${cols.map((c) => `${c.name} ${c.type}`).join(', ')}`,
        cause: e,
      });
    } finally {
      await conn.run(`DROP TABLE IF EXISTS temp.main.${ident(stageTable)}`);
    }
  }
  return cols.length === 0 ? [{ name: '_shoal_one', type: 'INTEGER' }] : cols.map((c) => ({ name: c.name, type: c.type }));
}
