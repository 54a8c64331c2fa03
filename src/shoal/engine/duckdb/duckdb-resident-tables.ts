/**
 * DuckDB's resident tables: an in-memory database of their own (`__shoal_hot`, attached
 * `:memory:`), reserved so no source can map onto it and left alone by catalog reconciliation.
 * Each copy is one table `"__shoal_hot"."main"."<name>"`, created in one statement (CTAS, so a
 * reader sees it whole or not at all) and dropped by its owner once no query is bound to it.
 */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { ResidentTables } from '../resident-tables.js';
import { ident, qualified } from './duckdb-sql.js';

/** The database resident tables live in (a reserved catalog name). */
export const RESIDENT_CATALOG = '__shoal_hot';

const NAME = /^[A-Za-z0-9_]{1,120}$/;

export class DuckDbResidentTables implements ResidentTables {
  private conn: Promise<DuckDBConnection> | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly instance: DuckDBInstance) {}

  /** One connection of its own, serialised, so loads never wait on (or block) catalog DDL. */
  private run<T>(work: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    this.conn ??= (async () => {
      const c = await this.instance.connect();
      await c.run(`ATTACH IF NOT EXISTS ':memory:' AS ${ident(RESIDENT_CATALOG)}`);
      return c;
    })();
    const next = this.queue.then(async () => work(await this.conn!));
    this.queue = next.catch(() => undefined);
    return next;
  }

  create(name: string, body: string): Promise<readonly string[]> {
    if (!NAME.test(name)) return Promise.reject(new TypeError(`resident table name "${name}" is not [A-Za-z0-9_]{1,120}`));
    return this.run(async (c) => {
      await c.run(`CREATE TABLE ${qualified(RESIDENT_CATALOG, 'main', name)} AS ${body}`);
      return [RESIDENT_CATALOG, 'main', name] as const;
    });
  }

  drop(name: string): Promise<void> {
    if (!NAME.test(name)) return Promise.resolve();
    return this.run(async (c) => void (await c.run(`DROP TABLE IF EXISTS ${qualified(RESIDENT_CATALOG, 'main', name)}`)));
  }

  list(): Promise<readonly string[]> {
    return this.run(async (c) => {
      const r = await c.runAndReadAll(`SELECT table_name FROM duckdb_tables() WHERE database_name = '${RESIDENT_CATALOG}' ORDER BY table_name`);
      return r.getRows().map((row) => String(row[0]));
    });
  }

  /** Close the connection (the engine closes the database right after). */
  async close(): Promise<void> {
    await this.queue;
    const c = await this.conn?.catch(() => undefined);
    c?.closeSync();
  }
}
