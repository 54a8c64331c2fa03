/**
 * The DuckDB engine: one in-memory DuckDB per instance, nothing written to a local file (S1).
 *
 * Catalog. Each entry is exposed as a view under its physical name
 * `"<catalog>"."<schema>"."<table>"` (the catalog is an `ATTACH ':memory:'` database) and as
 * `memory."<domain>"."<alias>"`, a view over the physical one. File sources are views over
 * `read_csv_auto` / `read_parquet` / `read_json_auto`; attached sources are views over the
 * `_src_<catalog>` database; landed sources are views over a connection-local temp table.
 *
 * Landing. Every `execute` runs on its own DuckDB connection. Before the query runs, each landed
 * table it needs is fetched through its Node driver (with the caller's projection and predicates
 * pushed into the source statement) into a temp table of that connection; DuckDB binds the view
 * to the executing connection's temp table, so concurrent queries each see their own landing.
 * The temp tables are dropped, and the connection closed, when the result stream ends; nothing
 * landed outlives its query and there is no cache.
 */
import { createHash } from 'node:crypto';
import { access, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, DuckDBTimestampTZValue, JsonDuckDBValueConverter, StatementType } from '@duckdb/node-api';
import type { DuckDBConnection, DuckDBResult, DuckDBType, DuckDBValue } from '@duckdb/node-api';
import { ShoalError } from '../../errors.js';
import { dataException } from '../../sources/source-errors.js';
import { SourcePool } from '../../sources/source-pool.js';
import { entryFingerprint, entryMatches, type CatalogEntry, type TableRef } from '../catalog-entry.js';
import type {
  Cell,
  ColumnInfo,
  Engine,
  ExecuteOptions,
  PushdownSpec,
  ReconcileReport,
  RowBatch,
  SimplePredicate,
  SourceHealth,
} from '../engine.js';
import type { LandingNeed } from './connectors/connector.js';
import { pushablePredicates } from '../pushdown-safety.js';
import { DuckDbConnectors } from './duckdb-connectors.js';
import { ident, qualified } from './duckdb-sql.js';
import { landRows } from './landing.js';
import { DuckDbResidentTables, RESIDENT_CATALOG } from './duckdb-resident-tables.js';

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

/** Database names DuckDB owns; a source id may not map onto one. */
const RESERVED_CATALOGS = new Set(['memory', 'temp', 'system', 'main', RESIDENT_CATALOG]);
/** Schemas of the main database that are not domains. */
const BUILTIN_SCHEMAS = new Set(['main', 'information_schema', 'pg_catalog']);

interface Projected {
  readonly entry: CatalogEntry;
  readonly fingerprint: string;
}

/** The connection-local temp table a landed entry's view reads. */
export function landingTableName(entry: Pick<CatalogEntry, 'key'>): string {
  const digest = createHash('sha256').update(entry.key).digest('hex').slice(0, 8);
  return `_land_${digest}_${entry.key.replace(/[^A-Za-z0-9_]/g, '_')}`.slice(0, 120);
}

/** Why the query stopped: the signal's own reason when it is ours (QUERY_TIMEOUT), else a cancellation. */
function cancelled(signal?: AbortSignal): ShoalError {
  const reason: unknown = signal?.reason;
  if (reason instanceof ShoalError) return reason;
  return new ShoalError('QUERY_CANCELLED', 'the query was cancelled', { hint: 'the client went away or the request timed out' });
}

/** DuckDB's error text can hold row values: keep it as the cause, report its class only. */
function engineError(e: unknown): ShoalError {
  if (e instanceof ShoalError) return e;
  const text = e instanceof Error ? e.message : String(e);
  const kind = /^([A-Za-z ]+ Error):/.exec(text)?.[1] ?? 'Error';
  if (kind === 'Out of Memory Error') {
    return new ShoalError('QUERY_MEMORY_LIMIT', 'the query needs more memory than the engine may use', {
      hint: 'narrow the query (fewer rows, columns or groups), or ask the operator about server.limits.memory_limit and max_temp_directory_size',
      cause: e,
    });
  }
  // a failed cast or an overflow is the client's own SQL meeting the data, as at a source (a 400);
  // anything else the engine rejects is what shoal or the catalog composed (a 502)
  if (kind === 'Conversion Error' || kind === 'Out of Range Error') {
    return dataException('the engine', kind === 'Out of Range Error' || /out of range/i.test(text) ? '22003' : '22018', e);
  }
  return new ShoalError('ENGINE_QUERY_FAILED', `the engine could not run the query (${kind})`, {
    hint: 'check the SQL against the registered tables and columns',
    cause: e,
  });
}

function predicateKey(p: SimplePredicate): string {
  return JSON.stringify(p, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}

/** One need per table: the union of projections, and only the predicates every spec shares. */
function mergeNeeds(specs: readonly PushdownSpec[]): Map<string, { ref: TableRef; need: LandingNeed }> {
  const out = new Map<string, { ref: TableRef; need: LandingNeed }>();
  for (const s of specs) {
    const k = JSON.stringify([s.table.sourceId, s.table.schema, s.table.table]);
    const mine: LandingNeed = { columns: s.columns, predicates: s.predicates ?? [] };
    const prev = out.get(k);
    if (prev === undefined) {
      out.set(k, { ref: s.table, need: mine });
      continue;
    }
    const columns =
      prev.need.columns === undefined || mine.columns === undefined ? undefined : [...new Set([...prev.need.columns, ...mine.columns])];
    const theirs = new Set(mine.predicates.map(predicateKey));
    out.set(k, { ref: prev.ref, need: { columns, predicates: prev.need.predicates.filter((p) => theirs.has(predicateKey(p))) } });
  }
  return out;
}

function typeName(t: DuckDBType): string {
  return t.alias ?? t.toString();
}

export class DuckDbEngine implements Engine {
  readonly name = 'duckdb' as const;
  private readonly projected = new Map<string, Projected>();
  private readonly failed = new Map<string, { entry: CatalogEntry; error: ShoalError }>();
  private readonly byLandingTable = new Map<string, CatalogEntry>();
  private readonly connectors: DuckDbConnectors;
  private ddl: Promise<unknown> = Promise.resolve();
  /** A spill directory this engine owns and removes on close. */
  private spillDirectory: string | undefined;
  private closed = false;
  /** Hot-table copies held between queries (their own database: reconcile never touches it). */
  readonly resident: DuckDbResidentTables;

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly admin: DuckDBConnection,
    private readonly pool: SourcePool,
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly installExtensions: boolean,
    clock: () => number,
  ) {
    this.connectors = new DuckDbConnectors(pool, clock);
    this.resident = new DuckDbResidentTables(instance);
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

  /** Serialise catalog DDL (reconcile and on-demand re-projection) on the admin connection. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.ddl.then(work, work);
    this.ddl = run.catch(() => undefined);
    return run;
  }

  private checkOpen(): void {
    if (this.closed) throw new ShoalError('ENGINE_CLOSED', 'the engine is closed', { hint: 'create a new engine' });
  }

  reconcile(entries: readonly CatalogEntry[]): Promise<ReconcileReport> {
    this.checkOpen();
    return this.exclusive(() => this.reconcileNow(entries));
  }

  private validate(entries: readonly CatalogEntry[]): Map<string, CatalogEntry> {
    const desired = new Map<string, CatalogEntry>();
    const domainNames = new Map<string, string>();
    const catalogs = new Set(entries.map((e) => e.catalog));
    for (const e of entries) {
      if (RESERVED_CATALOGS.has(e.catalog.toLowerCase())) {
        throw new ShoalError('ENGINE_NAME_CONFLICT', `source id "${e.source.id}" maps to the reserved catalog name "${e.catalog}"`, {
          where: `sources.${e.source.id}.id`,
          hint: `rename the source (not ${[...RESERVED_CATALOGS].join(', ')})`,
        });
      }
      if (catalogs.has(e.domain) || BUILTIN_SCHEMAS.has(e.domain.toLowerCase())) {
        throw new ShoalError('ENGINE_NAME_CONFLICT', `domain "${e.domain}" has the same name as a source catalog or a built-in schema`, {
          where: `domains.${e.domain}`,
          hint: 'rename the domain or the source so that "<domain>.<table>" is unambiguous',
        });
      }
      if (desired.has(e.key)) {
        throw new ShoalError('ENGINE_NAME_CONFLICT', `two tables are both registered as ${e.key}`, {
          where: `tables.${e.table}`,
          hint: 'register each source table once',
        });
      }
      const domainName = `${e.domain}.${e.alias}`;
      const other = domainNames.get(domainName);
      if (other !== undefined) {
        throw new ShoalError('ENGINE_NAME_CONFLICT', `tables ${other} and ${e.key} are both exposed as ${domainName}`, {
          where: `tables.${e.table}.alias`,
          hint: 'give one of them an alias',
        });
      }
      domainNames.set(domainName, e.key);
      desired.set(e.key, e);
    }
    return desired;
  }

  private async rows(sql: string): Promise<DuckDBValue[][]> {
    return (await this.admin.runAndReadAll(sql)).getRows();
  }

  private async reconcileNow(entries: readonly CatalogEntry[]): Promise<ReconcileReport> {
    const desired = this.validate(entries);
    const created: string[] = [];
    const dropped: string[] = [];
    const unchanged: string[] = [];
    const failedOut: { entry: string; code: string; message: string }[] = [];

    // What the engine holds right now, whatever we believe: views may have been dropped behind our back.
    const views = new Set((await this.rows(`SELECT database_name, schema_name, view_name FROM duckdb_views() WHERE NOT internal`)).map((r) => r.join('.')));

    for (const [key, p] of [...this.projected]) {
      if (!desired.has(key)) {
        await this.dropViews(p.entry);
        this.projected.delete(key);
        dropped.push(key);
      }
    }
    for (const key of [...this.failed.keys()]) if (!desired.has(key)) this.failed.delete(key);

    for (const entry of desired.values()) {
      const held = this.projected.get(entry.key);
      const present =
        views.has(`${entry.catalog}.${entry.schema}.${entry.table}`) && views.has(`memory.${entry.domain}.${entry.alias}`);
      if (held !== undefined && held.fingerprint === entryFingerprint(entry) && present) {
        unchanged.push(entry.key);
        continue;
      }
      if (held !== undefined) await this.dropViews(held.entry);
      try {
        await this.project(entry);
        created.push(entry.key);
      } catch (e) {
        const err = e instanceof ShoalError ? e : engineError(e);
        failedOut.push({ entry: entry.key, code: err.code, message: err.message });
      }
    }
    await this.collectGarbage(desired);
    await this.pool.retain(new Set([...desired.values()].map((e) => e.source.id)));
    return { created, dropped, unchanged, failed: failedOut };
  }

  private async dropViews(entry: CatalogEntry): Promise<void> {
    await this.admin.run(`DROP VIEW IF EXISTS ${qualified('memory', entry.domain, entry.alias)}`).catch(() => undefined);
    await this.admin.run(`DROP VIEW IF EXISTS ${qualified(entry.catalog, entry.schema, entry.table)}`).catch(() => undefined);
    this.byLandingTable.delete(landingTableName(entry));
  }

  /** Create (or replace) both views of one entry. On failure the entry is remembered as failed. */
  private async project(entry: CatalogEntry): Promise<void> {
    this.projected.delete(entry.key);
    try {
      const connector = this.connectors.for(entry);
      let body: string;
      if (connector.kind === 'scan') {
        body = connector.viewBody(entry);
      } else if (connector.kind === 'attach') {
        const plan = connector.plan(entry, this.env);
        const statements = this.installExtensions ? plan.statements : plan.statements.filter((st) => !st.startsWith('INSTALL '));
        await this.attach(entry, plan.extension, plan.alias, statements);
        body = plan.viewBody;
      } else {
        body = `SELECT * FROM temp.main.${ident(landingTableName(entry))}`;
      }
      await this.admin.run(`ATTACH IF NOT EXISTS ':memory:' AS ${ident(entry.catalog)}`);
      await this.admin.run(`CREATE SCHEMA IF NOT EXISTS ${qualified(entry.catalog, entry.schema)}`);
      await this.admin.run(`CREATE SCHEMA IF NOT EXISTS ${qualified('memory', entry.domain)}`);
      const physical = qualified(entry.catalog, entry.schema, entry.table);
      if (connector.kind === 'land') {
        // The view binds at creation: give it a placeholder temp table on the admin connection.
        const placeholder = `temp.main.${ident(landingTableName(entry))}`;
        await this.admin.run(`CREATE OR REPLACE TEMP TABLE ${ident(landingTableName(entry))} ("_shoal_placeholder" INTEGER)`);
        try {
          await this.admin.run(`CREATE OR REPLACE VIEW ${physical} AS ${body}`);
          await this.admin.run(`CREATE OR REPLACE VIEW ${qualified('memory', entry.domain, entry.alias)} AS SELECT * FROM ${physical}`);
        } finally {
          await this.admin.run(`DROP TABLE IF EXISTS ${placeholder}`);
        }
        this.byLandingTable.set(landingTableName(entry), entry);
      } else {
        try {
          await this.admin.run(`CREATE OR REPLACE VIEW ${physical} AS ${body}`);
        } catch (e) {
          if (connector.kind === 'scan') {
            throw new ShoalError('SOURCE_UNAVAILABLE', `source "${entry.source.id}" cannot be read: the file for ${entry.key} is missing or unreadable`, {
              where: `sources.${entry.source.id}.path`,
              hint: 'check that the file exists and is readable by shoal',
              cause: e,
            });
          }
          throw e;
        }
        await this.admin.run(`CREATE OR REPLACE VIEW ${qualified('memory', entry.domain, entry.alias)} AS SELECT * FROM ${physical}`);
      }
      this.projected.set(entry.key, { entry, fingerprint: entryFingerprint(entry) });
      this.failed.delete(entry.key);
    } catch (e) {
      const err = e instanceof ShoalError ? e : engineError(e);
      this.failed.set(entry.key, { entry, error: err });
      throw err;
    }
  }

  private async attach(entry: CatalogEntry, extension: string, alias: string, statements: readonly string[]): Promise<void> {
    const attached = (await this.rows(`SELECT database_name FROM duckdb_databases()`)).some((r) => r[0] === alias);
    if (attached) return;
    for (const [i, stmt] of statements.entries()) {
      try {
        await this.admin.run(stmt);
      } catch (e) {
        const isAttach = i === statements.length - 1;
        // Never echo the ATTACH statement or its error text: the DSN carries the password.
        throw isAttach
          ? new ShoalError('SOURCE_UNAVAILABLE', `source "${entry.source.id}" could not be attached through the DuckDB ${extension} extension`, {
              where: `sources.${entry.source.id}`,
              hint: 'check that the source is reachable and its credentials',
              cause: undefined,
            })
          : new ShoalError('ENGINE_EXTENSION_UNAVAILABLE', `source "${entry.source.id}" has attach: true, but the DuckDB "${extension}" extension cannot be loaded on this host`, {
              where: `sources.${entry.source.id}.attach`,
              hint: `install the extension where shoal runs (INSTALL ${extension} with network access, or copy it into the DuckDB extension directory), or set attach: false to land the source through its Node driver`,
              cause: e,
            });
      }
    }
  }

  /** Remove what no desired entry accounts for: stray views, schemas, catalogs and attachments. */
  private async collectGarbage(desired: ReadonlyMap<string, CatalogEntry>): Promise<void> {
    const entries = [...desired.values()];
    const wantViews = new Set(entries.flatMap((e) => [`${e.catalog}.${e.schema}.${e.table}`, `memory.${e.domain}.${e.alias}`]));
    const wantSchemas = new Set(entries.flatMap((e) => [`${e.catalog}.${e.schema}`, `memory.${e.domain}`]));
    const wantDatabases = new Set(entries.flatMap((e) => (e.mechanism === 'attach' ? [e.catalog, `_src_${e.catalog}`] : [e.catalog])));
    const databases = (await this.rows(`SELECT database_name FROM duckdb_databases() WHERE NOT internal`)).map((r) => String(r[0]));
    for (const db of databases) {
      if (!RESERVED_CATALOGS.has(db) && !wantDatabases.has(db)) await this.admin.run(`DETACH DATABASE IF EXISTS ${ident(db)}`);
    }
    for (const r of await this.rows(`SELECT database_name, schema_name, view_name FROM duckdb_views() WHERE NOT internal`)) {
      const [db, schema, view] = r.map(String) as [string, string, string];
      if (db.startsWith('_src_') || db === 'temp') continue;
      if (!wantViews.has(`${db}.${schema}.${view}`)) await this.admin.run(`DROP VIEW IF EXISTS ${qualified(db, schema, view)}`);
    }
    for (const r of await this.rows(`SELECT database_name, schema_name FROM duckdb_schemas() WHERE NOT internal`)) {
      const [db, schema] = r.map(String) as [string, string];
      if (db.startsWith('_src_') || db === 'temp' || db === 'system') continue;
      if (db === 'memory' && BUILTIN_SCHEMAS.has(schema)) continue;
      if (db !== 'memory' && schema === 'main') continue;
      if (!wantSchemas.has(`${db}.${schema}`)) await this.admin.run(`DROP SCHEMA IF EXISTS ${qualified(db, schema)} CASCADE`);
    }
    // Tables never belong in the catalog (S1): a table in a source catalog or a domain schema goes.
    for (const r of await this.rows(`SELECT database_name, schema_name, table_name FROM duckdb_tables() WHERE NOT internal AND NOT temporary`)) {
      const [db, schema, table] = r.map(String) as [string, string, string];
      const managed = db === 'memory' ? !BUILTIN_SCHEMAS.has(schema) : !db.startsWith('_src_') && !RESERVED_CATALOGS.has(db);
      if (managed) await this.admin.run(`DROP TABLE IF EXISTS ${qualified(db, schema, table)}`);
    }
  }

  /** All entries the engine knows, projected or failed. */
  private known(): CatalogEntry[] {
    return [...[...this.projected.values()].map((p) => p.entry), ...[...this.failed.values()].map((f) => f.entry)];
  }

  private async land(conn: DuckDBConnection, entry: CatalogEntry, need: LandingNeed, options: ExecuteOptions): Promise<void> {
    const connector = this.connectors.for(entry);
    if (connector.kind !== 'land') return;
    const safe: LandingNeed = { columns: need.columns, predicates: pushablePredicates(entry, need.predicates) };
    let fetched;
    try {
      fetched = await connector.fetch(entry, safe, options.signal);
    } catch (e) {
      // Pushdown is an optimization: if the source rejects the narrowed statement (a literal its
      // column type cannot take), fetch without predicates rather than fail the query.
      // (PostgreSQL reports that as a data exception: 22P02 invalid text representation.)
      if (!(e instanceof ShoalError && (e.code === 'SOURCE_QUERY_FAILED' || e.code === 'SQL_DATA_EXCEPTION') && safe.predicates.length > 0)) throw e;
      fetched = await connector.fetch(entry, { columns: need.columns, predicates: [] }, options.signal);
    }
    if (options.signal?.aborted) throw cancelled(options.signal);
    const columns = await landRows(conn, landingTableName(entry), entry.source.id, fetched.columns, fetched.rows);
    options.onLanding?.({
      table: { sourceId: entry.source.id, schema: entry.schema, table: entry.table },
      sourceSql: fetched.sourceSql,
      params: fetched.params,
      columns,
      rowsFetched: fetched.rows.length,
    });
  }

  /**
   * Which known entry a DuckDB "does not exist" error is about, if any: one that failed to
   * project, or one whose view was dropped behind the engine's back.
   */
  private missingEntryIn(message: string): CatalogEntry | undefined {
    if (!/does not exist/.test(message)) return undefined;
    const failed = [...[...this.failed.values()].map((f) => f.entry), ...[...this.projected.values()].map((p) => p.entry)];
    // DuckDB words it differently for a missing catalog, schema or table: most specific first.
    const tests: ((e: CatalogEntry) => boolean)[] = [
      (e) => message.includes(`"${e.catalog}.${e.schema}.${e.table}"`) || message.includes(`"${e.domain}.${e.alias}"`),
      (e) => message.includes(`Catalog "${e.catalog}" does not exist`) || message.includes(`schema "${e.domain}" does not exist`),
      (e) => message.includes(`name ${e.alias} does not exist`) || message.includes(`name ${e.table} does not exist`),
    ];
    for (const test of tests) {
      const hit = failed.find(test);
      if (hit !== undefined) return hit;
    }
    return undefined;
  }

  async *execute(sql: string, options: ExecuteOptions = {}): AsyncGenerator<RowBatch, void, undefined> {
    this.checkOpen();
    const { signal } = options;
    if (signal?.aborted) throw cancelled(signal);
    const conn = await this.instance.connect();
    const onAbort = (): void => conn.interrupt();
    signal?.addEventListener('abort', onAbort);
    // An abort while connecting fired before the listener existed: nothing would interrupt the statement.
    if (signal?.aborted) {
      signal.removeEventListener('abort', onAbort);
      conn.closeSync();
      throw cancelled(signal);
    }
    const landed = new Set<string>();
    const landedTables: string[] = [];
    // Tables landed with a projection: if the query reads a column outside it, land them whole.
    const projected = new Map<string, { entry: CatalogEntry; predicates: readonly SimplePredicate[] }>();
    try {
      for (const { ref, need } of mergeNeeds(options.pushdown ?? []).values()) {
        const entry = this.known().find((e) => entryMatches(e, ref));
        if (entry === undefined) {
          throw new ShoalError('ENGINE_UNKNOWN_TABLE', `pushdown names ${ref.sourceId}.${ref.schema}.${ref.table}, which is not in the engine catalog`, {
            where: `pushdown.${ref.sourceId}`,
            hint: 'reconcile the engine with the registry first',
          });
        }
        if (entry.mechanism !== 'land') continue;
        await this.land(conn, entry, need, options);
        landed.add(entry.key);
        landedTables.push(landingTableName(entry));
        if (need.columns !== undefined) projected.set(entry.key, { entry, predicates: need.predicates });
      }
      const params = (options.params ?? []).map((p) => p) as DuckDBValue[];
      let result: DuckDBResult | undefined;
      const retriedFailed = new Set<string>();
      while (result === undefined) {
        try {
          const prepared = await conn.prepare(sql);
          if (prepared.statementType !== StatementType.SELECT && prepared.statementType !== StatementType.EXPLAIN) {
            throw new ShoalError('ENGINE_READ_ONLY', 'the engine only runs SELECT statements', {
              hint: 'writes, DDL and settings are not allowed through a query',
            });
          }
          if (params.length > 0) prepared.bind(params);
          result = await prepared.stream();
        } catch (e) {
          if (signal?.aborted) throw cancelled(signal);
          const message = e instanceof Error ? e.message : '';
          // A landed table the caller gave no spec for: land it whole, then bind again.
          const temp = /_land_[0-9a-f]{8}_[A-Za-z0-9_]*/.exec(message)?.[0];
          const entry = temp === undefined ? undefined : this.byLandingTable.get(temp);
          if (entry !== undefined && !landed.has(entry.key)) {
            await this.land(conn, entry, { columns: undefined, predicates: [] }, options);
            landed.add(entry.key);
            landedTables.push(landingTableName(entry));
            continue;
          }
          // A projection that left out a column the query reads: land those tables with every column, once.
          if (projected.size > 0 && /Referenced column|not found in FROM clause|does not have a column/i.test(message)) {
            for (const { entry: p, predicates } of projected.values()) await this.land(conn, p, { columns: undefined, predicates }, options);
            projected.clear();
            continue;
          }
          // An entry that failed to project (a missing file, an unloadable extension) or whose view
          // went missing: project it again (once), else say why.
          const failed = this.missingEntryIn(message);
          if (failed !== undefined) {
            if (!retriedFailed.has(failed.key)) {
              retriedFailed.add(failed.key);
              // Throws the projection's own error (e.g. SOURCE_UNAVAILABLE) if it still fails.
              await this.exclusive(() => this.project(failed));
              continue;
            }
            throw this.failed.get(failed.key)?.error ?? engineError(e);
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
    } catch (e) {
      if (signal?.aborted && !(e instanceof ShoalError && (e.code === 'QUERY_CANCELLED' || e.code === 'QUERY_TIMEOUT'))) throw cancelled(signal);
      throw e;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      for (const t of landedTables) await conn.run(`DROP TABLE IF EXISTS temp.main.${ident(t)}`).catch(() => undefined);
      conn.closeSync();
    }
  }

  async health(sourceId: string): Promise<SourceHealth> {
    const entries = this.known().filter((e) => e.source.id === sourceId);
    const first = entries[0];
    if (first === undefined) {
      return { sourceId, ok: false, code: 'ENGINE_UNKNOWN_SOURCE', message: `source "${sourceId}" has no tables in the engine catalog` };
    }
    try {
      const failed = entries.map((e) => this.failed.get(e.key)).find((f) => f !== undefined);
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
        throw failed.error;
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
    await this.ddl.catch(() => undefined);
    await this.pool.closeAll();
    await this.resident.close();
    this.admin.closeSync();
    this.instance.closeSync();
    if (this.spillDirectory !== undefined) await rm(this.spillDirectory, { recursive: true, force: true });
  }
}
