/**
 * The DuckDB engine: one in-memory DuckDB per instance, nothing written to a local file (S1).
 *
 * Catalog: registry entries projected into views (./duckdb-catalog.ts).
 *
 * Queries. Every `execute` borrows a DuckDB connection of its own from a small pool
 * (./query-connections.ts), which keeps the statements it prepared. Before the query runs, each
 * landed table it needs is landed into a temp table of that connection (./query-landing.ts). The
 * temp tables are dropped when the result stream ends, and the connection goes back to the pool
 * only if that worked and no interrupt touched it; nothing landed outlives its query and there
 * is no result cache.
 */
import { access, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, DuckDBTimestampTZValue, JsonDuckDBValueConverter, StatementType } from '@duckdb/node-api';
import type { DuckDBConnection, DuckDBPreparedStatement, DuckDBResult, DuckDBType, DuckDBValue } from '@duckdb/node-api';
import { ShoalError } from '../../errors.js';
import type { SimplePredicate } from '../../sources/simple-predicate.js';
import { SourcePool } from '../../sources/source-pool.js';
import { entryMatches, type CatalogEntry } from '../catalog-entry.js';
import type { Cell, ColumnInfo, Engine, ExecuteOptions, ReconcileReport, RowBatch, SourceHealth } from '../engine.js';
import { DuckDbCatalog } from './duckdb-catalog.js';
import { DuckDbConnectors } from './duckdb-connectors.js';
import { cancelled, engineError } from './duckdb-errors.js';
import { DuckDbResidentTables } from './duckdb-resident-tables.js';
import { ident } from './duckdb-sql.js';
import { QueryConnections, type QueryConnectionCounts } from './query-connections.js';
import { landTable, landingTableName, mergeNeeds } from './query-landing.js';

export interface DuckDbEngineOptions {
  /** Where `${env:VAR}` secrets are resolved from (default: process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** DuckDB worker threads (default 2). */
  readonly threads?: number;
  /** DuckDB memory limit, e.g. `'1GB'` (`server.limits.memory_limit`). */
  readonly memoryLimit?: string;
  /** DuckDB `max_temp_directory_size`: the spill space queries may use (`server.limits.max_temp_directory_size`). */
  readonly maxTempDirectorySize?: string;
  /** Server-side statement timeout for every source statement a landing sends (ms; `server.limits.request_timeout`). */
  readonly sourceStatementTimeoutMs?: number;
  /**
   * Use this in-memory instance instead of creating one (benchmarks comparing against raw DuckDB,
   * tests that tamper with the catalog). The engine closes it on `close()`.
   */
  readonly instance?: DuckDBInstance;
  /**
   * Whether the attach connector may `INSTALL` a missing extension (a download) before `LOAD`.
   * Default true, as upstream; false for hosts where extensions are provisioned ahead of time.
   */
  readonly installExtensions?: boolean;
  /** DuckDB's extension directory (where INSTALL puts and LOAD finds extensions). */
  readonly extensionDirectory?: string;
  /** Epoch milliseconds; the `now` derived sources (tik stages) are computed at. Default: the system clock. */
  readonly clock?: () => number;
  /**
   * Where DuckDB may spill query buffers that outgrow memory. Default: a directory of its own
   * under the OS temp directory, removed on `close()` (never the instance's working directory).
   */
  readonly tempDirectory?: string;
}

/** Engines created by this process, for distinct default spill directories. */
let engineCount = 0;

function typeName(t: DuckDBType): string {
  return t.alias ?? t.toString();
}

function readOnly(prepared: DuckDBPreparedStatement): void {
  if (prepared.statementType !== StatementType.SELECT && prepared.statementType !== StatementType.EXPLAIN) {
    throw new ShoalError('ENGINE_READ_ONLY', 'the engine only runs SELECT statements', {
      hint: 'writes, DDL and settings are not allowed through a query',
    });
  }
}

export class DuckDbEngine implements Engine {
  readonly name = 'duckdb' as const;
  private readonly connectors: DuckDbConnectors;
  private readonly catalog: DuckDbCatalog;
  /** A spill directory this engine owns and removes on close. */
  private spillDirectory: string | undefined;
  private closed = false;
  /** Hot-table copies held between queries (their own database: reconcile never touches it). */
  readonly resident: DuckDbResidentTables;
  private readonly connections: QueryConnections;

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly admin: DuckDBConnection,
    private readonly pool: SourcePool,
    env: Readonly<Record<string, string | undefined>>,
    installExtensions: boolean,
    clock: () => number,
  ) {
    this.connectors = new DuckDbConnectors(pool, clock);
    this.catalog = new DuckDbCatalog(admin, this.connectors, pool, env, installExtensions);
    this.resident = new DuckDbResidentTables(instance);
    this.connections = new QueryConnections(instance);
  }

  static async create(options: DuckDbEngineOptions = {}): Promise<DuckDbEngine> {
    const config: Record<string, string> = {
      threads: String(options.threads ?? 2),
      // No surprise downloads at query time: only an explicit INSTALL (the attach connector) fetches.
      autoinstall_known_extensions: 'false',
    };
    if (options.memoryLimit !== undefined) config['memory_limit'] = options.memoryLimit;
    if (options.maxTempDirectorySize !== undefined) config['max_temp_directory_size'] = options.maxTempDirectorySize;
    if (options.extensionDirectory !== undefined) config['extension_directory'] = options.extensionDirectory;
    const ownSpill = options.tempDirectory === undefined ? join(tmpdir(), `shoal-duckdb-${process.pid}-${++engineCount}`) : undefined;
    config['temp_directory'] = options.tempDirectory ?? (ownSpill as string);
    const instance = options.instance ?? (await DuckDBInstance.create(':memory:', config));
    const admin = await instance.connect();
    // Every instance of a fleet computes and renders time the same way, whatever the host's zone.
    await admin.run("SET GLOBAL TimeZone = 'UTC'");
    // PostgreSQL semantics are the contract on every route: integer / integer truncates (7/2 = 3).
    await admin.run('SET GLOBAL integer_division = true');
    DuckDBTimestampTZValue.timezoneOffsetInMinutes = 0;
    const env = options.env ?? process.env;
    const engine = new DuckDbEngine(instance, admin, new SourcePool(env, options.sourceStatementTimeoutMs === undefined ? {} : { statementTimeoutMs: options.sourceStatementTimeoutMs }), env, options.installExtensions ?? true, options.clock ?? (() => Date.now()));
    engine.spillDirectory = ownSpill;
    return engine;
  }

  private checkOpen(): void {
    if (this.closed) throw new ShoalError('ENGINE_CLOSED', 'the engine is closed', { hint: 'create a new engine' });
  }

  reconcile(entries: readonly CatalogEntry[]): Promise<ReconcileReport> {
    this.checkOpen();
    return this.catalog.reconcile(entries);
  }

  async *execute(sql: string, options: ExecuteOptions = {}): AsyncGenerator<RowBatch, void, undefined> {
    this.checkOpen();
    const { signal } = options;
    if (signal?.aborted) throw cancelled(signal);
    const lease = await this.connections.acquire();
    const { conn } = lease;
    const onAbort = (): void => conn.interrupt();
    signal?.addEventListener('abort', onAbort);
    // An abort while connecting fired before the listener existed: nothing would interrupt the statement.
    if (signal?.aborted) {
      signal.removeEventListener('abort', onAbort);
      this.connections.release(lease, true);
      throw cancelled(signal);
    }
    const landed = new Set<string>();
    const landedTables: string[] = [];
    let failed = false;
    // a reader that stopped early leaves its result (and its transaction) open on the connection
    let finished = false;
    // Tables landed with a projection: if the query reads a column outside it, land them whole.
    const projected = new Map<string, { entry: CatalogEntry; predicates: readonly SimplePredicate[] }>();
    try {
      for (const { ref, need } of mergeNeeds(options.pushdown ?? []).values()) {
        const entry = this.catalog.known().find((e) => entryMatches(e, ref));
        if (entry === undefined) {
          throw new ShoalError('ENGINE_UNKNOWN_TABLE', `pushdown names ${ref.sourceId}.${ref.schema}.${ref.table}, which is not in the engine catalog`, {
            where: `pushdown.${ref.sourceId}`,
            hint: 'reconcile the engine with the registry first',
          });
        }
        if (entry.mechanism !== 'land') continue;
        // named before landing: a landing that fails half-way is dropped all the same
        landedTables.push(landingTableName(entry));
        await landTable(conn, this.connectors, entry, need, options);
        landed.add(entry.key);
        if (need.columns !== undefined) projected.set(entry.key, { entry, predicates: need.predicates });
      }
      const params = (options.params ?? []).map((p) => p) as DuckDBValue[];
      let result: DuckDBResult | undefined;
      const retriedFailed = new Set<string>();
      while (result === undefined) {
        try {
          const prepared = await lease.prepare(sql, readOnly);
          if (params.length > 0) prepared.bind(params);
          result = await prepared.stream();
        } catch (e) {
          lease.forget(sql);
          if (signal?.aborted) throw cancelled(signal);
          const message = e instanceof Error ? e.message : '';
          // A landed table the caller gave no spec for: land it whole, then bind again.
          const temp = /_land_[0-9a-f]{8}_[A-Za-z0-9_]*/.exec(message)?.[0];
          const entry = temp === undefined ? undefined : this.catalog.entryForLandingTable(temp);
          if (entry !== undefined && !landed.has(entry.key)) {
            landedTables.push(landingTableName(entry));
            await landTable(conn, this.connectors, entry, { columns: undefined, predicates: [] }, options);
            landed.add(entry.key);
            continue;
          }
          // A projection that left out a column the query reads: land those tables with every column, once.
          if (projected.size > 0 && /Referenced column|not found in FROM clause|does not have a column/i.test(message)) {
            for (const { entry: p, predicates } of projected.values()) await landTable(conn, this.connectors, p, { columns: undefined, predicates }, options);
            projected.clear();
            continue;
          }
          // An entry that failed to project (a missing file, an unloadable extension) or whose view
          // went missing: project it again (once), else say why.
          const failed = this.catalog.missingEntryIn(message);
          if (failed !== undefined) {
            if (!retriedFailed.has(failed.key)) {
              retriedFailed.add(failed.key);
              // Throws the projection's own error (e.g. SOURCE_UNAVAILABLE) if it still fails.
              await this.catalog.reproject(failed);
              continue;
            }
            throw this.catalog.failure(failed.key) ?? engineError(e);
          }
          throw engineError(e);
        }
      }
      const columns: ColumnInfo[] = result.columnNames().map((name, i) => ({ name, type: typeName(result.columnType(i)) }));
      let yielded = false;
      try {
        for await (const chunk of result) {
          if (signal?.aborted) throw cancelled(signal);
          if (chunk.rowCount === 0) continue;
          yielded = true;
          yield { columns, rows: chunk.convertRows(JsonDuckDBValueConverter) as Cell[][] };
        }
      } catch (e) {
        if (signal?.aborted) throw cancelled(signal);
        throw engineError(e);
      }
      // An interrupt can end the stream early without an error: never pass that off as complete.
      if (signal?.aborted) throw cancelled(signal);
      if (!yielded) yield { columns, rows: [] };
      finished = true;
    } catch (e) {
      failed = true;
      if (signal?.aborted && !(e instanceof ShoalError && (e.code === 'QUERY_CANCELLED' || e.code === 'QUERY_TIMEOUT'))) throw cancelled(signal);
      throw e;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      // an interrupted connection, one a failed query may have left a landing (or its stage
      // table) on, or one whose result was abandoned, serves no other query
      let clean = signal?.aborted !== true && !failed && finished;
      for (const t of landedTables) {
        await conn.run(`DROP TABLE IF EXISTS temp.main.${ident(t)}`).catch(() => {
          clean = false;
        });
      }
      this.connections.release(lease, clean);
    }
  }

  /** The query connections lent and kept (a query holds one until its stream ends). */
  connectionCounts(): QueryConnectionCounts {
    return this.connections.counts();
  }

  async health(sourceId: string): Promise<SourceHealth> {
    const entries = this.catalog.known().filter((e) => e.source.id === sourceId);
    const first = entries[0];
    if (first === undefined) {
      return { sourceId, ok: false, code: 'ENGINE_UNKNOWN_SOURCE', message: `source "${sourceId}" has no tables in the engine catalog` };
    }
    try {
      const failed = entries.map((e) => this.catalog.failure(e.key)).find((f) => f !== undefined);
      const connector = this.connectors.for(first);
      if (connector.kind === 'land') {
        await connector.ping(first);
      } else if (connector.kind === 'scan') {
        for (const e of entries) {
          await access(connector.filePath(e)).catch((cause: unknown) => {
            throw new ShoalError('SOURCE_UNAVAILABLE', `source "${sourceId}" cannot be read: the file for ${e.key} is missing or unreadable`, {
              where: `sources.${sourceId}.path`,
              cause,
            });
          });
        }
      } else if (failed !== undefined) {
        throw failed;
      }
      return { sourceId, ok: true };
    } catch (e) {
      const err = e instanceof ShoalError ? e : engineError(e);
      return { sourceId, ok: false, code: err.code, message: err.message };
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.catalog.idle();
    await this.pool.closeAll();
    await this.resident.close();
    this.connections.close();
    this.admin.closeSync();
    this.instance.closeSync();
    if (this.spillDirectory !== undefined) await rm(this.spillDirectory, { recursive: true, force: true });
  }
}
