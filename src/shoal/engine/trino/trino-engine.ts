/**
 * The Trino engine: queries run on a Trino cluster (coordinator at `url`), for queries that must
 * span machines. Like the DuckDB engine it holds only derived state (S1): its catalogs, schemas
 * and tables are projected from registry entries by `reconcile` and recreated from scratch by a
 * new engine; the Parquet it reads lives in a scratch area shared with every Trino node.
 *
 * Reachability (reachability.ts):
 * - file sources (csv, parquet, json): read by the DuckDB engine's own reader and written once per
 *   file version as Parquet under `<scratch>/files/`, exposed as an external table of a hive
 *   catalog (file metastore, local file system) named after the source catalog;
 * - landed sources (postgresql, mysql, sqlite, tik): per query, the source statement with the
 *   pushed-down predicates is fetched through the same Node-driver connector the DuckDB engine
 *   uses, written as Parquet in this query's own directory and table (landing-area.ts), which
 *   the query's SQL is pointed at; both are gone when the result stream ends. No other query, of
 *   this instance or another over the same scratch area, ever sees them.
 * - `attach: true` postgresql/mysql sources: Trino's own connector, when the deployment has it
 *   (`connectors`); the CREATE CATALOG carries the password resolved at reconcile time.
 * - anything else: ENGINE_SOURCE_UNREACHABLE in the reconcile report and at query time.
 */
import { createHash } from 'node:crypto';
import { access, mkdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ShoalError } from '../../errors.js';
import { dataException } from '../../sources/source-errors.js';
import { SourcePool } from '../../sources/source-pool.js';
import { entryFingerprint, entryMatches, type CatalogEntry } from '../catalog-entry.js';
import { DuckDbConnectors } from '../duckdb/duckdb-connectors.js';
import type { LandingConnector, ScanConnector } from '../duckdb/connectors/connector.js';
import type { Cell, ColumnInfo, Engine, ExecuteOptions, PushdownSpec, ReconcileReport, RowBatch, SourceHealth } from '../engine.js';
import type { SimplePredicate } from '../../sources/simple-predicate.js';
import { pushablePredicates } from '../pushdown-safety.js';
import { type Reach, type TrinoConnectorName, reachFor, unreachableError } from '../reachability.js';
import { LandingArea, type QueryLanding } from './landing-area.js';
import { ParquetWriter, type WrittenColumn } from './parquet-writer.js';
import { SnapshotCopies } from './snapshot-copies.js';
import { renameTables, tableReferences } from './table-references.js';
import { TrinoClient, TrinoQueryError } from './trino-client.js';
import { connectorCatalogStatement, hiveCatalogStatement } from './trino-catalogs.js';
import { ident, literal, qualified } from './trino-sql.js';
import { engineTypeName, toCell } from './trino-types.js';

export interface TrinoEngineOptions {
  /** The coordinator, e.g. `http://127.0.0.1:8080` (`federation_engine_url`). */
  readonly url: string;
  /**
   * A directory every Trino node and this instance see at the same path (a shared mount on a
   * cluster): Parquet of file and landed sources, and the hive file metastore, live under it.
   */
  readonly scratchDir: string;
  /** `X-Trino-User` (default `shoal`). */
  readonly user?: string;
  /** Default catalog and schema of the session (for SQL with one- or two-part names). */
  readonly defaultCatalog?: string;
  readonly defaultSchema?: string;
  /** Trino connector plugins this deployment has, for `attach: true` sources (default none). */
  readonly connectors?: readonly TrinoConnectorName[];
  /** Where `${env:VAR}` secrets are resolved from (default: process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Server-side statement timeout for every source statement a landing sends (ms). */
  readonly sourceStatementTimeoutMs?: number;
  /** Epoch milliseconds; the `now` derived sources (tik stages) are computed at. */
  readonly clock?: () => number;
  /** How often this instance marks its landing area alive, and after how long without a mark a peer may remove an area (ms; landing-area.ts). */
  readonly landingHeartbeatMs?: number;
  readonly landingAbandonedAfterMs?: number;
}

/**
 * The hive catalogs over the scratch area that every instance over it shares: MV snapshots as
 * tables, and every query's landed tables. Named per scratch directory (`<base>_<digest of its
 * path>`): a catalog's location is the scratch path it was created with, and fleets with other
 * scratch directories may share the Trino.
 */
const SHARED_CATALOGS = { mv: 'shoal_mv', landed: 'shoal_landed' } as const;

function sharedCatalogNames(scratch: string): { readonly mv: string; readonly landed: string } {
  const digest = createHash('sha256').update(scratch).digest('hex').slice(0, 8);
  return { mv: `${SHARED_CATALOGS.mv}_${digest}`, landed: `${SHARED_CATALOGS.landed}_${digest}` };
}

/** Catalog names Trino or this engine owns. */
function reservedCatalog(name: string): boolean {
  const n = name.toLowerCase();
  return n === 'system' || Object.values(SHARED_CATALOGS).some((base) => n.startsWith(base));
}

interface Projected {
  readonly entry: CatalogEntry;
  readonly fingerprint: string;
  readonly reach: Reach;
}

/** A directory name for one entry: readable, and unique whatever characters the names hold. */
function entryDir(entry: CatalogEntry): string {
  const digest = createHash('sha256').update(entry.key).digest('hex').slice(0, 8);
  return `${entry.key.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 100)}_${digest}`;
}

/** An entry's physical three-part name as Trino resolves it (lower case, dotted). */
function physicalName(e: CatalogEntry): string {
  return [e.catalog, e.schema, e.table].map((p) => p.toLowerCase()).join('\0');
}

function cancelled(signal?: AbortSignal): ShoalError {
  const reason: unknown = signal?.reason;
  if (reason instanceof ShoalError) return reason;
  return new ShoalError('QUERY_CANCELLED', 'the query was cancelled', { hint: 'the client went away or the request timed out' });
}

/** Trino's data errors (the client's SQL meeting the data, a 400 as at a source) by SQLSTATE; any other failure is a 502. */
const TRINO_DATA_ERRORS: Readonly<Record<string, string>> = { DIVISION_BY_ZERO: '22012', INVALID_CAST_ARGUMENT: '22018', NUMERIC_VALUE_OUT_OF_RANGE: '22003' };

function engineError(e: unknown): ShoalError {
  if (e instanceof TrinoQueryError && /EXCEEDED_.*MEMORY|EXCEEDED_.*SPILL/.test(e.errorName)) {
    return new ShoalError('QUERY_MEMORY_LIMIT', 'the query needs more memory than the engine may use', {
      hint: 'narrow the query (fewer rows, columns or groups), or ask the operator about the Trino memory limits',
      cause: e,
    });
  }
  const dataState = e instanceof TrinoQueryError ? TRINO_DATA_ERRORS[e.errorName] : undefined;
  if (dataState !== undefined) return dataException('the engine', dataState, e);
  if (e instanceof ShoalError) return e;
  return new ShoalError('ENGINE_QUERY_FAILED', 'the engine could not run the query', { hint: 'check the SQL against the registered tables and columns', cause: e });
}

/** A queue per key: landings of one table take turns. */
class KeyedLocks {
  private readonly tails = new Map<string, Promise<void>>();

  async acquire(keys: readonly string[]): Promise<() => void> {
    const releases: (() => void)[] = [];
    // one global order, so two queries locking overlapping sets cannot deadlock
    for (const key of [...new Set(keys)].sort()) {
      const prev = this.tails.get(key) ?? Promise.resolve();
      let release!: () => void;
      const mine = new Promise<void>((r) => (release = r));
      const tail = prev.then(() => mine);
      this.tails.set(key, tail);
      await prev;
      releases.push(() => {
        release();
        if (this.tails.get(key) === tail) this.tails.delete(key);
      });
    }
    return () => releases.forEach((r) => r());
  }
}

/** Only statements that read: the engine boundary refuses anything else before Trino sees it. */
function isReadOnly(sql: string): boolean {
  const head = sql.replace(/^(\s+|--[^\n]*\n|\/\*[\s\S]*?\*\/|\()+/, '');
  return /^(SELECT|WITH|VALUES|TABLE)\b/i.test(head) || /^EXPLAIN\s+(?!ANALYZE)/i.test(head);
}

export class TrinoEngine implements Engine {
  readonly name = 'trino' as const;
  /** MV snapshots: each published file is copied once into the scratch area and declared as a table (snapshot-copies.ts). */
  readonly snapshots: SnapshotCopies;
  readonly client: TrinoClient;
  private readonly scratch: string;
  private readonly projected = new Map<string, Projected>();
  private readonly failed = new Map<string, { entry: CatalogEntry; error: ShoalError }>();
  /** Catalogs this engine created (dropped when no entry needs them). */
  private readonly catalogs = new Map<string, string>();
  /** Per file entry: the source file version its Parquet was written from. */
  private readonly fileStamps = new Map<string, string>();
  private readonly locks = new KeyedLocks();
  private readonly landing: LandingArea;
  /** The shared catalogs of this scratch area. */
  readonly sharedCatalogs: { readonly mv: string; readonly landed: string };
  private readonly connectors: DuckDbConnectors;
  private ddl: Promise<unknown> = Promise.resolve();
  private closed = false;

  private constructor(
    private readonly options: TrinoEngineOptions,
    private readonly writer: ParquetWriter,
    private readonly pool: SourcePool,
  ) {
    this.client = new TrinoClient({
      url: options.url,
      ...(options.user === undefined ? {} : { user: options.user }),
      ...(options.defaultCatalog === undefined ? {} : { catalog: options.defaultCatalog }),
      ...(options.defaultSchema === undefined ? {} : { schema: options.defaultSchema }),
    });
    this.scratch = resolve(options.scratchDir);
    this.connectors = new DuckDbConnectors(pool, options.clock ?? (() => Date.now()));
    this.sharedCatalogs = sharedCatalogNames(this.scratch);
    this.snapshots = new SnapshotCopies({
      client: this.client,
      writer,
      scratch: this.scratch,
      catalog: this.sharedCatalogs.mv,
      ensureCatalog: (name) => this.ensureSharedCatalog(name),
      exclusive: (work) => this.exclusive(work),
      checkOpen: () => this.checkOpen(),
      now: options.clock ?? (() => Date.now()),
    });
    this.landing = new LandingArea(this.client, this.scratch, this.sharedCatalogs.landed, (name) => this.ensureSharedCatalog(name), {
      ...(options.landingHeartbeatMs === undefined ? {} : { heartbeatMs: options.landingHeartbeatMs }),
      ...(options.landingAbandonedAfterMs === undefined ? {} : { abandonedAfterMs: options.landingAbandonedAfterMs }),
    });
  }

  /** Connect to the coordinator (it must be up and done starting) and prepare the scratch area. */
  static async create(options: TrinoEngineOptions): Promise<TrinoEngine> {
    const env = options.env ?? process.env;
    const pool = new SourcePool(env, options.sourceStatementTimeoutMs === undefined ? {} : { statementTimeoutMs: options.sourceStatementTimeoutMs });
    const probe = new TrinoClient({ url: options.url });
    const info = await probe.info();
    if (info.starting) {
      throw new ShoalError('ENGINE_UNAVAILABLE', `the Trino coordinator at ${options.url} is still starting`, {
        where: 'federation_engine_url',
        hint: 'wait until GET /v1/info reports "starting": false, then start shoal',
      });
    }
    await mkdir(resolve(options.scratchDir), { recursive: true });
    return new TrinoEngine(options, await ParquetWriter.create(), pool);
  }

  private get env(): Readonly<Record<string, string | undefined>> {
    return this.options.env ?? process.env;
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.ddl.then(work, work);
    this.ddl = run.catch(() => undefined);
    return run;
  }

  private checkOpen(): void {
    if (this.closed) throw new ShoalError('ENGINE_CLOSED', 'the engine is closed', { hint: 'create a new engine' });
  }

  /** How this engine reaches an entry's source. */
  reach(entry: CatalogEntry): Reach {
    return reachFor('trino', entry.source.type, entry.mechanism === 'attach', this.options.connectors === undefined ? {} : { connectors: this.options.connectors });
  }

  reconcile(entries: readonly CatalogEntry[]): Promise<ReconcileReport> {
    this.checkOpen();
    return this.exclusive(() => this.reconcileNow(entries));
  }

  private validate(entries: readonly CatalogEntry[]): Map<string, CatalogEntry> {
    const desired = new Map<string, CatalogEntry>();
    for (const e of entries) {
      if (reservedCatalog(e.catalog)) {
        throw new ShoalError('ENGINE_NAME_CONFLICT', `source id "${e.source.id}" maps to the reserved catalog name "${e.catalog}"`, {
          where: `sources.${e.source.id}.id`,
          hint: 'rename the source',
        });
      }
      // Trino folds names to lower case: two entries equal but for case would collide
      const k = e.key.toLowerCase();
      if ([...desired.keys()].some((d) => d.toLowerCase() === k)) {
        throw new ShoalError('ENGINE_NAME_CONFLICT', `two tables are both registered as ${e.key} (Trino names are case-insensitive)`, {
          where: `tables.${e.table}`,
          hint: 'register each source table once, under names that differ by more than case',
        });
      }
      desired.set(e.key, e);
    }
    return desired;
  }

  private async reconcileNow(entries: readonly CatalogEntry[]): Promise<ReconcileReport> {
    const desired = this.validate(entries);
    const created: string[] = [];
    const dropped: string[] = [];
    const unchanged: string[] = [];
    const failedOut: { entry: string; code: string; message: string }[] = [];
    const existingCatalogs = new Set((await this.client.rows('SHOW CATALOGS')).map((r) => String(r[0])));

    for (const [key, p] of [...this.projected]) {
      if (!desired.has(key)) {
        await this.dropTable(p.entry).catch(() => undefined);
        this.projected.delete(key);
        dropped.push(key);
      }
    }
    for (const key of [...this.failed.keys()]) if (!desired.has(key)) this.failed.delete(key);

    for (const entry of desired.values()) {
      const held = this.projected.get(entry.key);
      if (held !== undefined && held.fingerprint === entryFingerprint(entry) && (held.reach.kind === 'land' || existingCatalogs.has(entry.catalog))) {
        unchanged.push(entry.key);
        continue;
      }
      try {
        await this.project(entry, existingCatalogs);
        created.push(entry.key);
      } catch (e) {
        const err = e instanceof ShoalError ? e : engineError(e);
        failedOut.push({ entry: entry.key, code: err.code, message: err.message });
      }
    }
    // catalogs this engine made that no entry needs any more (a landed entry needs none)
    const wanted = new Set([...desired.values()].filter((e) => this.reach(e).kind !== 'land').map((e) => e.catalog));
    for (const c of [...this.catalogs.keys()]) {
      if (!wanted.has(c)) {
        await this.client.query(`DROP CATALOG IF EXISTS ${ident(c)}`).catch(() => undefined);
        this.catalogs.delete(c);
      }
    }
    await this.pool.retain(new Set([...desired.values()].map((e) => e.source.id)));
    // what instances that died left in the scratch area (best effort: the next reconcile tries again)
    await this.landing.sweep().catch(() => undefined);
    return { created, dropped, unchanged, failed: failedOut };
  }

  /** Create the catalog an entry lives in, once per engine (re-created so its properties are ours). */
  private async ensureCatalog(entry: CatalogEntry, reach: Reach, existing: Set<string>): Promise<void> {
    const kind = reach.kind === 'connector' ? `connector:${entryFingerprint(entry)}` : 'hive';
    if (this.catalogs.get(entry.catalog) === kind && existing.has(entry.catalog)) return;
    if (existing.has(entry.catalog)) await this.client.query(`DROP CATALOG IF EXISTS ${ident(entry.catalog)}`);
    existing.delete(entry.catalog);
    if (reach.kind === 'connector') {
      const stmt = connectorCatalogStatement(entry, reach.connector, this.env);
      try {
        await this.client.query(stmt.text);
      } catch (e) {
        // never echo the statement or Trino's text: the statement carries the password
        throw new ShoalError('SOURCE_UNAVAILABLE', `source "${entry.source.id}" could not be attached through Trino's ${reach.connector} connector`, {
          where: `sources.${entry.source.id}`,
          hint: `check that the trino-${reach.connector} plugin is installed on every node, the source is reachable from them, and its credentials`,
          cause: e instanceof TrinoQueryError ? new Error(e.errorName) : undefined,
        });
      }
    } else {
      try {
        await this.client.query(hiveCatalogStatement(entry.catalog, this.scratch));
      } catch (e) {
        // another instance of the fleet created it first: same config, same statement
        if (!(e instanceof TrinoQueryError && e.errorName === 'ALREADY_EXISTS')) throw e;
      }
    }
    existing.add(entry.catalog);
    this.catalogs.set(entry.catalog, kind);
  }

  /** A hive catalog over the scratch area that every instance shares (shoal_mv, shoal_landed): created by whichever instance comes first, never dropped. */
  private async ensureSharedCatalog(name: string): Promise<void> {
    const existing = new Set((await this.client.rows('SHOW CATALOGS')).map((r) => String(r[0])));
    if (existing.has(name)) return;
    try {
      await this.client.query(hiveCatalogStatement(name, this.scratch));
    } catch (e) {
      if (!(e instanceof TrinoQueryError && e.errorName === 'ALREADY_EXISTS')) throw e;
    }
  }

  private fileLocation(entry: CatalogEntry): { dir: string; uri: string } {
    const rel = `files/${entryDir(entry)}`;
    return { dir: join(this.scratch, rel), uri: `local:///${rel}` };
  }

  private async dropTable(entry: CatalogEntry): Promise<void> {
    if (this.catalogs.get(entry.catalog) !== 'hive') return;
    await this.client.query(`DROP TABLE IF EXISTS ${qualified(entry.catalog, entry.schema, entry.table)}`);
    this.fileStamps.delete(entry.key);
  }

  private async declareTable(entry: CatalogEntry, columns: readonly WrittenColumn[], uri: string): Promise<void> {
    const name = qualified(entry.catalog, entry.schema, entry.table);
    await this.client.query(`CREATE SCHEMA IF NOT EXISTS ${qualified(entry.catalog, entry.schema)}`);
    await this.client.query(`DROP TABLE IF EXISTS ${name}`);
    const defs = columns.map((c) => `${ident(c.name)} ${c.trino}`).join(', ');
    await this.client.query(`CREATE TABLE ${name} (${defs}) WITH (format = 'PARQUET', external_location = ${literal(uri)})`);
  }

  private async fileStamp(path: string): Promise<string> {
    const s = await stat(path);
    return `${s.size}:${s.mtimeMs}`;
  }

  /** (Re)write a file source's Parquet and table when its file changed. */
  private async refreshFile(entry: CatalogEntry): Promise<void> {
    const scan = this.connectors.for(entry) as ScanConnector;
    let stamp: string;
    try {
      stamp = await this.fileStamp(scan.filePath(entry));
    } catch (e) {
      throw new ShoalError('SOURCE_UNAVAILABLE', `source "${entry.source.id}" cannot be read: the file for ${entry.key} is missing or unreadable`, {
        where: `sources.${entry.source.id}.path`,
        hint: 'check that the file exists and is readable by shoal',
        cause: e,
      });
    }
    if (this.fileStamps.get(entry.key) === stamp) return;
    const loc = this.fileLocation(entry);
    let columns: WrittenColumn[];
    try {
      columns = await this.writer.writeFile(entry, scan, join(loc.dir, 'data.parquet'));
    } catch (e) {
      throw new ShoalError('SOURCE_UNAVAILABLE', `source "${entry.source.id}" cannot be read: the file for ${entry.key} is missing or unreadable`, {
        where: `sources.${entry.source.id}.path`,
        hint: 'check that the file exists and is readable by shoal',
        cause: e,
      });
    }
    await this.declareTable(entry, columns, loc.uri);
    this.fileStamps.set(entry.key, stamp);
  }

  private async project(entry: CatalogEntry, existingCatalogs: Set<string>): Promise<void> {
    this.projected.delete(entry.key);
    try {
      const reach = this.reach(entry);
      if (reach.kind === 'unreachable') throw unreachableError(entry, reach, 'trino');
      // a landed entry has no catalog of its own: each query lands it in its own table (landing-area.ts)
      if (reach.kind !== 'land') await this.ensureCatalog(entry, reach, existingCatalogs);
      if (reach.kind === 'hive-file') {
        this.fileStamps.delete(entry.key);
        await this.refreshFile(entry);
      }
      this.projected.set(entry.key, { entry, fingerprint: entryFingerprint(entry), reach });
      this.failed.delete(entry.key);
    } catch (e) {
      const err = e instanceof ShoalError ? e : engineError(e);
      this.failed.set(entry.key, { entry, error: err });
      throw err;
    }
  }

  private known(): CatalogEntry[] {
    return [...[...this.projected.values()].map((p) => p.entry), ...[...this.failed.values()].map((f) => f.entry)];
  }

  /** Entries the SQL names by their physical three-part name (quoted or not, outside literals and comments), or a pushdown spec names. */
  private referenced(sql: string, pushdown: readonly PushdownSpec[]): CatalogEntry[] {
    const named = new Set(tableReferences(sql).map((r) => r.parts.join('\0')));
    return this.known().filter((e) => pushdown.some((s) => entryMatches(e, s.table)) || named.has(physicalName(e)));
  }

  /** The predicates every spec for `entry` shares (pushdown only narrows what is fetched). */
  private commonPredicates(entry: CatalogEntry, pushdown: readonly PushdownSpec[]): SimplePredicate[] {
    const specs = pushdown.filter((s) => entryMatches(entry, s.table));
    if (specs.length === 0) return [];
    const key = (p: SimplePredicate) => JSON.stringify(p, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
    let common = (specs[0]!.predicates ?? []).slice();
    for (const s of specs.slice(1)) {
      const theirs = new Set((s.predicates ?? []).map(key));
      common = common.filter((p) => theirs.has(key(p)));
    }
    return pushablePredicates(entry, common);
  }

  /** Land one table for one query (fetch, write Parquet, declare its own table): the table's qualified name. */
  private async land(entry: CatalogEntry, predicates: readonly SimplePredicate[], into: QueryLanding, options: ExecuteOptions): Promise<string> {
    const connector = this.connectors.for(entry) as LandingConnector;
    // every column: the Trino table keeps one column list however narrow a query is
    let fetched;
    try {
      fetched = await connector.fetch(entry, { columns: undefined, predicates }, options.signal);
    } catch (e) {
      if (!(e instanceof ShoalError && (e.code === 'SOURCE_QUERY_FAILED' || e.code === 'SQL_DATA_EXCEPTION') && predicates.length > 0)) throw e;
      fetched = await connector.fetch(entry, { columns: undefined, predicates: [] }, options.signal);
    }
    if (options.signal?.aborted) throw cancelled(options.signal);
    const { table, columns } = await into.add(entryDir(entry), (file) => this.writer.writeLanded(entry, fetched, file));
    options.onLanding?.({
      table: { sourceId: entry.source.id, schema: entry.schema, table: entry.table },
      sourceSql: fetched.sourceSql,
      params: fetched.params,
      columns: columns.map((c) => ({ name: c.name, type: engineTypeName(c.trino) })),
      rowsFetched: fetched.rows.length,
    });
    return table;
  }

  async *execute(sql: string, options: ExecuteOptions = {}): AsyncGenerator<RowBatch, void, undefined> {
    this.checkOpen();
    const { signal } = options;
    if (signal?.aborted) throw cancelled(signal);
    if ((options.params ?? []).length > 0) {
      throw new ShoalError('ENGINE_PARAMS_UNSUPPORTED', 'the Trino engine does not bind query parameters', {
        hint: 'inline the values as literals (governed SQL never needs parameters)',
      });
    }
    if (!isReadOnly(sql)) {
      throw new ShoalError('ENGINE_READ_ONLY', 'the engine only runs SELECT statements', { hint: 'writes, DDL and settings are not allowed through a query' });
    }
    const pushdown = options.pushdown ?? [];
    for (const s of pushdown) {
      if (!this.known().some((e) => entryMatches(e, s.table))) {
        throw new ShoalError('ENGINE_UNKNOWN_TABLE', `pushdown names ${s.table.sourceId}.${s.table.schema}.${s.table.table}, which is not in the engine catalog`, {
          where: `pushdown.${s.table.sourceId}`,
          hint: 'reconcile the engine with the registry first',
        });
      }
    }
    const refs = this.referenced(sql, pushdown);
    // an entry that failed to project: try once more, else say why (never a missing-table error from Trino)
    for (const e of refs) {
      if (this.failed.has(e.key)) {
        const existing = new Set((await this.client.rows('SHOW CATALOGS')).map((r) => String(r[0])));
        await this.exclusive(() => this.project(e, existing));
      }
    }
    const kind = (e: CatalogEntry) => this.projected.get(e.key)?.reach.kind;
    const files = refs.filter((e) => kind(e) === 'hive-file');
    const landed = refs.filter((e) => kind(e) === 'land');
    // a file source's Parquet and table are rewritten in place when the file changes: its readers take turns
    const release = await this.locks.acquire(files.map((e) => e.key));
    let landing: QueryLanding | undefined;
    try {
      for (const e of files) {
        if (signal?.aborted) throw cancelled(signal);
        await this.exclusive(() => this.refreshFile(e));
      }
      // landed tables are this query's own: its SQL reads them under their private names
      const privateName = new Map<string, string>();
      if (landed.length > 0) landing = await this.landing.begin();
      for (const e of landed) {
        if (signal?.aborted) throw cancelled(signal);
        privateName.set(physicalName(e), await this.land(e, this.commonPredicates(e, pushdown), landing!, options));
      }
      if (privateName.size > 0) sql = renameTables(sql, (r) => privateName.get(r.parts.join('\0')));
      let columns: ColumnInfo[] | undefined;
      let types: string[] = [];
      let yielded = false;
      try {
        for await (const page of this.client.stream(sql, signal)) {
          if (columns === undefined) {
            columns = page.columns.map((c) => ({ name: c.name, type: engineTypeName(c.type) }));
            types = page.columns.map((c) => c.type);
          }
          if (page.rows.length === 0) continue;
          yielded = true;
          yield { columns, rows: page.rows.map((r) => r.map((v, i) => toCell(v, types[i] ?? 'unknown')) as Cell[]) };
        }
      } catch (e) {
        if (signal?.aborted) throw cancelled(signal);
        throw engineError(e);
      }
      if (signal?.aborted) throw cancelled(signal);
      if (!yielded) yield { columns: columns ?? [], rows: [] };
    } finally {
      // landed data is gone when the stream ends
      await landing?.release();
      release();
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
      if (failed !== undefined) throw failed.error;
      const reach = this.reach(first);
      if (reach.kind === 'land') await (this.connectors.for(first) as LandingConnector).ping(first);
      else if (reach.kind === 'hive-file') {
        for (const e of entries) await access((this.connectors.for(e) as ScanConnector).filePath(e));
      } else await this.client.query(`SELECT 1 FROM ${qualified(first.catalog, 'information_schema', 'schemata')} LIMIT 1`);
      return { sourceId, ok: true };
    } catch (e) {
      const err = e instanceof ShoalError ? e : new ShoalError('SOURCE_UNAVAILABLE', `source "${sourceId}" cannot be reached`, { cause: e });
      return { sourceId, ok: false, code: err.code, message: err.message };
    }
  }

  /** The files this engine's landings currently hold (none between queries). */
  landedFiles(): Promise<string[]> {
    return this.landing.files();
  }

  /** This engine's landing area (its schema in the shared landed catalog, its directory under `<scratch>/landed/`). */
  get landingInstance(): string {
    return this.landing.instance;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.ddl.catch(() => undefined);
    await this.landing.close();
    await this.pool.closeAll();
    this.writer.close();
  }
}
