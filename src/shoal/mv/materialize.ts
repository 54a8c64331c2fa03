/**
 * Compute an MV's content and write it as one Parquet snapshot (federation-fleet.md §1.10).
 *
 * The content is computed with the SERVICE identity, never the caller's (see ./service-identity.ts).
 *
 * The engine streams the rows (landing sources as any query does); a scratch in-memory DuckDB
 * takes them and COPYs them to Parquet with the engine's column types, in the store's staging file.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import type { TableConfig } from '../config/model.js';
import { qualifiedName } from '../config/model.js';
import type { Cell, ColumnInfo, Engine } from '../engine/engine.js';
import { ShoalError } from '../errors.js';
import type { GovernanceCatalog } from '../sql/index.js';
import { serviceViewSql } from './service-identity.js';
import type { SnapshotStore } from './snapshot-store.js';

export interface MaterializeRequest {
  readonly table: TableConfig;
  readonly serviceCatalog: GovernanceCatalog;
  readonly engine: Engine;
  readonly store: SnapshotStore;
  readonly snapshotId: string;
  /**
   * The engine SQL to run: view_sql planned for the service role with the derived tables it reads
   * already bound (default: `serviceViewSql`, for view_sql over source tables only).
   */
  readonly sql?: string;
  /** Abort the build (lease lost, shutdown): the staging file is removed, nothing is published. */
  readonly signal?: AbortSignal;
  /** Progress: rows written so far (the admin API shows it for running refreshes). */
  readonly onProgress?: (rows: number) => void;
  /** Every row is in; the Parquet file is being written. */
  readonly onWriting?: () => void;
}

export interface Materialized {
  readonly snapshotId: string;
  readonly path: string;
  readonly rowCount: number;
  readonly columns: readonly ColumnInfo[];
}

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;
const NESTED = /\[\]|^(STRUCT|MAP|UNION)\b|\[\d+\]$/i;

function cellText(c: Cell): string | null {
  if (c === null) return null;
  if (typeof c === 'string') return c;
  if (typeof c === 'number' || typeof c === 'boolean') return String(c);
  return JSON.stringify(c);
}

/**
 * The text of a cell cast back to its engine type (nested values travel as JSON). Parquet has no
 * 128-bit integer (DuckDB would write a lossy DOUBLE): HUGEINT (e.g. a sum of BIGINTs) is stored as
 * DECIMAL(38,0), exact, with the same text and the same wire form.
 */
function castBack(column: string, type: string): string {
  if (/^U?HUGEINT$/i.test(type)) return `CAST(${column} AS DECIMAL(38,0))`;
  if (/^JSON$/i.test(type)) return `CAST(${column} AS JSON)`;
  if (NESTED.test(type)) return `CAST(CAST(${column} AS JSON) AS ${type})`;
  return `CAST(${column} AS ${type})`;
}

/** Compute the MV with the service identity and write it as the snapshot `snapshotId` (unpublished). */
export async function materialize(req: MaterializeRequest): Promise<Materialized> {
  const sql = req.sql ?? serviceViewSql(req.table, req.serviceCatalog);
  let columns: readonly ColumnInfo[] = [];
  let rowCount = 0;
  const path = await req.store.write(req.snapshotId, async (staging) => {
    const scratch = await DuckDBInstance.create(':memory:', { threads: '1' });
    const conn = await scratch.connect();
    try {
      await conn.run("SET TimeZone = 'UTC'");
      let appender: Awaited<ReturnType<typeof conn.createAppender>> | undefined;
      for await (const batch of req.engine.execute(sql, req.signal ? { signal: req.signal } : {})) {
        if (req.signal?.aborted) throw abortError(req);
        if (appender === undefined) {
          columns = batch.columns;
          const defs = columns.map((_, i) => `c${i} VARCHAR`).join(', ');
          await conn.run(`CREATE TABLE rows_in (${defs || 'c0 VARCHAR'})`);
          appender = await conn.createAppender('rows_in');
        }
        for (const row of batch.rows) {
          for (const cell of row) {
            const text = cellText(cell);
            if (text === null) appender.appendNull();
            else appender.appendVarchar(text);
          }
          appender.endRow();
        }
        rowCount += batch.rows.length;
        req.onProgress?.(rowCount);
      }
      appender?.closeSync();
      if (req.signal?.aborted) throw abortError(req);
      if (columns.length === 0) {
        throw new ShoalError('MV_EMPTY_SHAPE', `view_sql of MV ${qualifiedName(req.table)} produced no columns`, { hint: 'an MV must select at least one column' });
      }
      req.onWriting?.();
      const select = columns.map((c, i) => `${castBack(`c${i}`, c.type)} AS ${quote(c.name)}`).join(', ');
      await conn.run(`COPY (SELECT ${select} FROM rows_in) TO '${staging.replace(/'/g, "''")}' (FORMAT parquet)`);
    } finally {
      conn.closeSync();
      scratch.closeSync();
    }
  });
  return { snapshotId: req.snapshotId, path, rowCount, columns };
}

function abortError(req: MaterializeRequest): Error {
  const reason: unknown = req.signal?.reason;
  return reason instanceof Error
    ? reason
    : new ShoalError('MV_REFRESH_ABORTED', `the refresh of MV ${qualifiedName(req.table)} was aborted`, { hint: 'nothing was published' });
}
