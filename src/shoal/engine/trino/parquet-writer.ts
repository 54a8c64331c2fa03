/**
 * Writes the Parquet the Trino engine reads: landed source rows (the governed projection's source
 * statement, fetched through the same Node-driver connectors the DuckDB engine lands with) and
 * file sources (read by the same DuckDB readers the DuckDB engine uses, so both engines type a
 * CSV column the same way). An in-memory DuckDB does the writing; nothing is kept in it.
 */
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { CatalogEntry } from '../catalog-entry.js';
import type { ColumnInfo } from '../engine.js';
import type { LandedRows, ScanConnector } from '../duckdb/connectors/connector.js';
import { ident, literal } from '../duckdb/duckdb-sql.js';
import { landRows } from '../duckdb/landing.js';
import { parquetPlanFor } from './trino-types.js';

/** A column as written: its name and its Trino type. */
export interface WrittenColumn {
  readonly name: string;
  readonly trino: string;
}

let written = 0;

export class ParquetWriter {
  private constructor(private readonly instance: DuckDBInstance) {}

  static async create(): Promise<ParquetWriter> {
    const instance = await DuckDBInstance.create(':memory:', { threads: '1', autoinstall_known_extensions: 'false' });
    const c = await instance.connect();
    await c.run("SET GLOBAL TimeZone = 'UTC'");
    c.closeSync();
    return new ParquetWriter(instance);
  }

  private async copy(conn: DuckDBConnection, from: string, columns: readonly ColumnInfo[], file: string): Promise<WrittenColumn[]> {
    const plans = columns.map((c) => ({ name: c.name, ...parquetPlanFor(c.type) }));
    const select = plans.map((p) => (p.cast === undefined ? ident(p.name) : `CAST(${ident(p.name)} AS ${p.cast}) AS ${ident(p.name)}`)).join(', ');
    await mkdir(dirname(file), { recursive: true });
    // write beside, then rename: a reader never sees half a file
    const tmp = `${dirname(file)}/.${process.pid}-${++written}.tmp`;
    try {
      await conn.run(`COPY (SELECT ${select} FROM ${from}) TO ${literal(tmp)} (FORMAT PARQUET)`);
      await rename(tmp, file);
    } finally {
      await rm(tmp, { force: true });
    }
    return plans.map((p) => ({ name: p.name, trino: p.trino }));
  }

  /** Write fetched rows to `file` (typed as the DuckDB engine would land them). */
  async writeLanded(entry: CatalogEntry, fetched: LandedRows, file: string): Promise<WrittenColumn[]> {
    const conn = await this.instance.connect();
    try {
      const table = `land_${++written}`;
      const columns = await landRows(conn, table, entry.source.id, fetched.columns, fetched.rows);
      const out = await this.copy(conn, `temp.main.${ident(table)}`, columns, file);
      await conn.run(`DROP TABLE IF EXISTS temp.main.${ident(table)}`);
      return out;
    } finally {
      conn.closeSync();
    }
  }

  /** Read a file source with the DuckDB engine's reader and write it to `file` as Parquet. */
  async writeFile(entry: CatalogEntry, scan: ScanConnector, file: string): Promise<WrittenColumn[]> {
    const conn = await this.instance.connect();
    try {
      const body = scan.viewBody(entry);
      const described = (await conn.runAndReadAll(`DESCRIBE ${body}`)).getRows();
      const columns = described.map((r) => ({ name: String(r[0]), type: String(r[1]) }));
      return await this.copy(conn, `(${body})`, columns, file);
    } finally {
      conn.closeSync();
    }
  }

  /** Rewrite an MV snapshot (Parquet of the snapshot store) to `file` in the form the Trino hive connector reads. */
  async writeSnapshot(path: string, file: string): Promise<WrittenColumn[]> {
    const conn = await this.instance.connect();
    try {
      const body = `read_parquet(${literal(path)})`;
      const described = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${body}`)).getRows();
      const columns = described.map((r) => ({ name: String(r[0]), type: String(r[1]) }));
      return await this.copy(conn, body, columns, file);
    } finally {
      conn.closeSync();
    }
  }

  close(): void {
    this.instance.closeSync();
  }
}
