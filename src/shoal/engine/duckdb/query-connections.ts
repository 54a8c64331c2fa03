/**
 * The engine's query connections: a few DuckDB connections kept between queries, each with the
 * statements it has prepared. A connection is cheap to open, but a statement is not: preparing
 * one plans it (for a Parquet scan, planning again at execution), and a repeated query would pay
 * that every time on a fresh connection.
 *
 * A connection goes back to the pool only clean: its query ran to the end or its reader stopped
 * early, and the temp tables it landed were dropped. One whose query failed or was interrupted,
 * or whose clean-up failed, is closed instead, so an interrupt or a leftover temp table (a
 * landing that failed half-way) can never reach another query. Prepared statements are safe to reuse: DuckDB binds one again whenever the catalog it
 * read (a view, a landed temp table, a resident copy) changed since it was prepared.
 */
import type { DuckDBConnection, DuckDBInstance, DuckDBPreparedStatement } from '@duckdb/node-api';

/** Idle connections kept (more concurrent queries open more; the extra ones close when done). */
const IDLE_CONNECTIONS = 4;
/** Prepared statements kept per connection, least recently used dropped first. */
const PREPARED_PER_CONNECTION = 128;

/** One connection lent to one query at a time. */
export class QueryConnection {
  private readonly prepared = new Map<string, DuckDBPreparedStatement>();

  constructor(readonly conn: DuckDBConnection) {}

  /** The statement for `sql`, prepared on this connection once and kept while it is used. */
  async prepare(sql: string, accept: (p: DuckDBPreparedStatement) => void): Promise<DuckDBPreparedStatement> {
    const kept = this.prepared.get(sql);
    if (kept !== undefined) {
      this.prepared.delete(sql);
      this.prepared.set(sql, kept);
      return kept;
    }
    const fresh = await this.conn.prepare(sql);
    try {
      accept(fresh);
    } catch (e) {
      fresh.destroySync();
      throw e;
    }
    this.prepared.set(sql, fresh);
    if (this.prepared.size > PREPARED_PER_CONNECTION) {
      const [oldest, statement] = this.prepared.entries().next().value as [string, DuckDBPreparedStatement];
      this.prepared.delete(oldest);
      statement.destroySync();
    }
    return fresh;
  }

  /** Forget `sql`'s statement (it failed: the next query prepares it afresh). */
  forget(sql: string): void {
    const kept = this.prepared.get(sql);
    if (kept === undefined) return;
    this.prepared.delete(sql);
    kept.destroySync();
  }

  close(): void {
    for (const p of this.prepared.values()) p.destroySync();
    this.prepared.clear();
    this.conn.closeSync();
  }
}

export interface QueryConnectionCounts {
  /** Connections lent to a running query. */
  readonly busy: number;
  /** Connections kept for the next query. */
  readonly idle: number;
}

export class QueryConnections {
  private readonly idle: QueryConnection[] = [];
  private busy = 0;
  private closed = false;

  constructor(private readonly instance: DuckDBInstance) {}

  async acquire(): Promise<QueryConnection> {
    this.busy++;
    // last in, first out: the connection most likely to hold this query's statement
    const kept = this.idle.pop();
    if (kept !== undefined) return kept;
    try {
      return new QueryConnection(await this.instance.connect());
    } catch (e) {
      this.busy--;
      throw e;
    }
  }

  /** Give `c` back; `clean` false (a failed or interrupted query, a failed clean-up) closes it instead. */
  release(c: QueryConnection, clean: boolean): void {
    this.busy--;
    if (clean && !this.closed && this.idle.length < IDLE_CONNECTIONS) this.idle.push(c);
    else c.close();
  }

  counts(): QueryConnectionCounts {
    return { busy: this.busy, idle: this.idle.length };
  }

  /** Close the idle connections; busy ones close as their queries end. */
  close(): void {
    this.closed = true;
    for (const c of this.idle.splice(0)) c.close();
  }
}
