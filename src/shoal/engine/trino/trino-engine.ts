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
 *   uses, written as Parquet under `<scratch>/landed/`, read by Trino, and deleted when the
 *   result stream ends. Queries that land the same table take turns (a per-table lock): the
 *   table's location is one directory.
 * - `attach: true` postgresql/mysql sources: Trino's own connector, when the deployment has it
 *   (`connectors`); the CREATE CATALOG carries the password resolved at reconcile time.
 * - anything else: ENGINE_SOURCE_UNREACHABLE in the reconcile report and at query time.
 */
import { createHash } from 'node:crypto';
import { access, mkdir, readdir, rm, stat } from 'node:fs/promises';
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
import { ParquetWriter, type WrittenColumn } from './parquet-writer.js';
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
}

/** The hive catalog (over the scratch area) holding MV snapshots as tables. */
export const MV_SNAPSHOT_CATALOG = 'shoal_mv';
const MV_SNAPSHOT_SCHEMA = 'snapshots';

/** Catalog names Trino or this engine owns. */
const RESERVED_CATALOGS = new Set(['system', MV_SNAPSHOT_CATALOG]);

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

function columnsSignature(cols: readonly WrittenColumn[]): string {
  return cols.map((c) => `${c.name.toLowerCase()} ${c.trino}`).join(',');
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

let queryCount = 0;

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export class TrinoEngine implements Engine {
  readonly name = 'trino' as const;
  /** MV snapshots: each published file is copied once into the scratch area and declared as a table. */
  readonly snapshots = { body: async (path: string): Promise<string> => `SELECT * FROM ${await this.snapshotTable(path)}` };
  private readonly snapshotTables = new Map<string, Promise<string>>();
  readonly client: TrinoClient;
  private readonly scratch: string;
  private readonly projected = new Map<string, Projected>();
  private readonly failed = new Map<string, { entry: CatalogEntry; error: ShoalError }>();
  /** Catalogs this engine created (dropped when no entry needs them). */
  private readonly catalogs = new Map<string, string>();
  /** Per file entry: the source file version its Parquet was written from. */
  private readonly fileStamps = new Map<string, string>();
  /** Per landed entry: the columns its Trino table was declared with. */
  private readonly landedSignatures = new Map<string, string>();
  private readonly locks = new KeyedLocks();
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
      if (RESERVED_CATALOGS.has(e.catalog.toLowerCase())) {
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
      if (held !== undefined && held.fingerprint === entryFingerprint(entry) && existingCatalogs.has(entry.catalog)) {
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
    // catalogs this engine made that no entry needs any more
    const wanted = new Set([...desired.values()].map((e) => e.catalog));
    for (const c of [...this.catalogs.keys()]) {
      if (!wanted.has(c)) {
        await this.client.query(`DROP CATALOG IF EXISTS ${ident(c)}`).catch(() => undefined);
        this.catalogs.delete(c);
      }
    }
    await this.pool.retain(new Set([...desired.values()].map((e) => e.source.id)));
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

  /**
   * The table of one MV snapshot: `shoal_mv.snapshots.s_<digest of its path>`, over a copy of the
   * file in `<scratch>/mv/<digest>/` (Trino nodes may not see the snapshot store, and a hive table
   * is a directory). A snapshot file is immutable, so the copy and the table are named by its path
   * and shared by every instance over the same scratch area: writing the same bytes again, or a
   * peer's CREATE first, changes nothing a reader sees.
   */
  private snapshotTable(path: string): Promise<string> {
    this.checkOpen();
    const abs = resolve(path);
    let held = this.snapshotTables.get(abs);
    if (held === undefined) {
      held = this.exclusive(() => this.mountSnapshot(abs));
      this.snapshotTables.set(abs, held);
      held.catch(() => this.snapshotTables.delete(abs));
    }
    return held;
  }

  private async mountSnapshot(path: string): Promise<string> {
    const digest = createHash('sha256').update(path).digest('hex').slice(0, 24);
    const rel = `mv/${digest}`;
    const columns = await this.writer.writeSnapshot(path, join(this.scratch, rel, 'data.parquet'));
    const existing = new Set((await this.client.rows('SHOW CATALOGS')).map((r) => String(r[0])));
    if (!existing.has(MV_SNAPSHOT_CATALOG)) {
      try {
        await this.client.query(hiveCatalogStatement(MV_SNAPSHOT_CATALOG, this.scratch));
      } catch (e) {
        if (!(e instanceof TrinoQueryError && e.errorName === 'ALREADY_EXISTS')) throw e;
      }
    }
    await this.client.query(`CREATE SCHEMA IF NOT EXISTS ${qualified(MV_SNAPSHOT_CATALOG, MV_SNAPSHOT_SCHEMA)}`);
    const name = qualified(MV_SNAPSHOT_CATALOG, MV_SNAPSHOT_SCHEMA, `s_${digest}`);
    const defs = columns.map((c) => `${ident(c.name)} ${c.trino}`).join(', ');
    // never DROP: a peer may be reading the table; same path, same bytes, same columns
    await this.client.query(`CREATE TABLE IF NOT EXISTS ${name} (${defs}) WITH (format = 'PARQUET', external_location = ${literal(`local:///${rel}`)})`);
    return name;
  }

  private fileLocation(entry: CatalogEntry): { dir: string; uri: string } {
    const rel = `files/${entryDir(entry)}`;
    return { dir: join(this.scratch, rel), uri: `local:///${rel}` };
  }

  private landedLocation(entry: CatalogEntry): { dir: string; uri: string } {
    const rel = `landed/${entryDir(entry)}`;
    return { dir: join(this.scratch, rel), uri: `local:///${rel}` };
  }

  private async dropTable(entry: CatalogEntry): Promise<void> {
    if (this.catalogs.get(entry.catalog) !== 'hive') return;
    await this.client.query(`DROP TABLE IF EXISTS ${qualified(entry.catalog, entry.schema, entry.table)}`);
    this.landedSignatures.delete(entry.key);
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
      await this.ensureCatalog(entry, reach, existingCatalogs);
      if (reach.kind === 'hive-file') {
        this.fileStamps.delete(entry.key);
        await this.refreshFile(entry);
      } else if (reach.kind === 'land') {
        // a landing left behind by a crashed instance is never read: the table is declared by the next landing
        await this.client.query(`DROP TABLE IF EXISTS ${qualified(entry.catalog, entry.schema, entry.table)}`);
        this.landedSignatures.delete(entry.key);
        await rm(this.landedLocation(entry).dir, { recursive: true, force: true });
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

  /** Entries the SQL names by their physical three-part name (quoted or not), or a pushdown spec names. */
  private referenced(sql: string, pushdown: readonly PushdownSpec[]): CatalogEntry[] {
    const text = sql.toLowerCase();
    return this.known().filter((e) => {
      if (pushdown.some((s) => entryMatches(e, s.table))) return true;
      // each part quoted or not (a quoted part cannot hold a quote here: names with quotes take the exact form)
      const part = (p: string) => `(?:"${esc(p.toLowerCase())}"|${esc(p.toLowerCase())}(?![a-z0-9_$]))`;
      const named = new RegExp(`(?:^|[^a-z0-9_$"])${[e.catalog, e.schema, e.table].map(part).join('\\s*\\.\\s*')}`);
      return text.includes(qualified(e.catalog, e.schema, e.table).toLowerCase()) || named.test(text);
    });
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

  /** Land one table for one query: fetch, write Parquet, (re)declare the table if its columns changed. */
  private async land(entry: CatalogEntry, predicates: readonly SimplePredicate[], tag: string, options: ExecuteOptions): Promise<string> {
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
    const loc = this.landedLocation(entry);
    const file = join(loc.dir, `${tag}.parquet`);
    const columns = await this.writer.writeLanded(entry, fetched, file);
    const sig = columnsSignature(columns);
    if (this.landedSignatures.get(entry.key) !== sig) {
      await this.exclusive(() => this.declareTable(entry, columns, loc.uri));
      this.landedSignatures.set(entry.key, sig);
    }
    options.onLanding?.({
      table: { sourceId: entry.source.id, schema: entry.schema, table: entry.table },
      sourceSql: fetched.sourceSql,
      params: fetched.params,
      columns: columns.map((c) => ({ name: c.name, type: engineTypeName(c.trino) })),
      rowsFetched: fetched.rows.length,
    });
    return file;
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
    const touched = refs.filter((e) => {
      const k = this.projected.get(e.key)?.reach.kind;
      return k === 'land' || k === 'hive-file';
    });
    const release = await this.locks.acquire(touched.map((e) => e.key));
    const landedFiles: string[] = [];
    const tag = `q${process.pid}-${++queryCount}-${Date.now()}`;
    try {
      for (const e of touched) {
        if (signal?.aborted) throw cancelled(signal);
        const reach = this.projected.get(e.key)!.reach;
        if (reach.kind === 'hive-file') await this.exclusive(() => this.refreshFile(e));
        else landedFiles.push(await this.land(e, this.commonPredicates(e, pushdown), tag, options));
      }
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
      await Promise.all(landedFiles.map((f) => rm(f, { force: true })));
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
  async landedFiles(): Promise<string[]> {
    const root = join(this.scratch, 'landed');
    const dirs = await readdir(root).catch(() => [] as string[]);
    const out: string[] = [];
    for (const d of dirs) for (const f of await readdir(join(root, d)).catch(() => [] as string[])) if (f.endsWith('.parquet')) out.push(join(root, d, f));
    return out;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.ddl.catch(() => undefined);
    await this.pool.closeAll();
    this.writer.close();
  }
}
