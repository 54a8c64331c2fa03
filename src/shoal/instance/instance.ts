/**
 * One shoal instance: config → control-plane registry → engine catalog → governed SQL → results,
 * with nothing durable in the process (ARCHITECTURE.md S1, S2, S6).
 *
 * Start-up is: load config → open the registry and import the config (idempotent) → read a
 * registry snapshot → reconcile the engine catalog and build the governance catalog from it →
 * ready. A watch on the registry's config epoch repeats the last two steps whenever any instance
 * mutates the registry, so every instance converges on the same catalog within the poll interval.
 */
import { randomBytes } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isCodedError } from '../../core/errors.js';
import { createAuthenticator } from '../auth/authenticator.js';
import type { EdgeAuth } from '../auth/edge-auth.js';
import { withAbsolutePaths } from '../config/absolute-paths.js';
import { catalogOf } from '../config/model.js';
import { DEFAULT_AUTH } from '../config/auth-config.js';
import { openIdentityStore, type IdentityStore } from '../registry/identity-store.js';
import { openIdentityCheckedClient } from '../registry/identity-checked-client.js';
import type { SqlClient } from '../../core/sql/sql-client.js';
import { ResultCache, type ResultCacheOptions } from '../cache/result-cache.js';
import { HotCache, type HotBinding, type HotStatus } from '../cache/hot-cache.js';
import { hotAgeHeader } from '../cache/hot-age.js';
import { readHotSignal } from '../cache/hot-signal.js';
import type { HotBackend } from '../cache/hot-backend.js';
import { hotCandidates, type HotCandidate } from '../cache/hot-selection.js';
import { MemoryHotBackend } from '../cache/memory-hot-backend.js';
import { RedisHotBackend } from '../cache/redis-hot-backend.js';
import type { CatalogOwner, ShoalConfig, SourceConfig, TableConfig } from '../config/model.js';
import { limitsOf, requestTimeoutMs } from '../config/limits.js';
import { catalogEntries, sourceTypeOf } from '../engine/catalog-entry.js';
import { DuckDbEngine } from '../engine/duckdb/duckdb-engine.js';
import { TrinoEngine } from '../engine/trino/trino-engine.js';
import type { Engine, RowBatch } from '../engine/engine.js';
import { ShoalError, shoalErrorFrom } from '../errors.js';
import { engineNameWithMvs } from '../mv/mv-relation.js';
import { MvService } from '../mv/mv-service.js';
import { MvScheduler } from '../mv/scheduler.js';
import { SnapshotStore, storeDirectory } from '../mv/snapshot-store.js';
import { openRegistry } from '../registry/open-registry.js';
import type { Registry } from '../registry/registry.js';
import type { Timer } from '../registry/timer.js';
import { watchEpoch, type EpochWatch } from '../registry/watch-epoch.js';
import { AdminSourcePolicy } from '../server/admin-source-policy.js';
import { MetricsRegistry } from '../server/metrics.js';
import type { CatalogRequest, CatalogTableInfo, HealthReport, QueryRequest, QueryResult, QueryService } from '../server/query-service.js';
import { quoteIdent } from '../sources/pushdown-sql.js';
import { SourcePool } from '../sources/source-pool.js';
import { directDialectOf } from '../sql/route.js';
import { roleCatalog } from '../sql/role-catalog.js';
import { type RoleGraphTable, roleGraph } from '../sql/role-graph.js';
import { normalizeRows } from './normalize-cells.js';
import { directResultColumns, engineResultColumns } from './result-columns.js';
import { governanceOf } from './plan-job.js';
import { limitToDomains } from '../sql/domain-scope.js';
import { PlannerPool, type PlanCatalog } from './planner-pool.js';
import { PlanCache } from './plan-cache.js';
import { oneBatch } from './one-batch.js';
import { abortError, disposing, requestDeadline, type Deadline } from './request-deadline.js';
import { checkSqlLimits } from '../sql/sql-limits.js';
import { explainBindFailure } from '../sql/bind-failure.js';
import { clientSqlFault } from './client-sql-fault.js';
import { ruleNamer } from '../check/policy-targets.js';
import type { SourceDialect } from '../sources/source-driver.js';

/** The registry used when the config names none: a SQLite file beside the config. */
export const EMBEDDED_REGISTRY_URL = 'sqlite:///shoal-registry.db';

export interface InstanceOptions {
  readonly config: ShoalConfig;
  /** Directory relative paths in the config (registry file, file sources) are resolved against. */
  readonly baseDir: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Config-epoch poll interval (default 2000 ms). */
  readonly pollMs?: number;
  /**
   * Write the config's catalog to the registry at start (default true), as `control_plane.catalog`
   * says: `config` applies the file exactly (additions, changes, deletions; a no-op when the
   * registry already equals it); `registry` seeds a registry that was never written (epoch 0) and
   * otherwise leaves it alone. A read command passes false.
   */
  readonly importConfig?: boolean;
  /** Open this registry instead of the config's (`sqlite:///:memory:`: a catalog built in memory). */
  readonly registryUrl?: string;
  /** Called with background failures (a reconcile that failed; it is retried at the next poll). */
  readonly onError?: (e: unknown) => void;
  /** Materialized views (defaults also read from env SHOAL_MV_TICK_MS, SHOAL_MV_LEASE_MS). */
  readonly mv?: InstanceMvOptions;
  /** Where this instance reports its series (the cache tiers'); `/metrics` serves it. Default: a new registry. */
  readonly metrics?: MetricsRegistry;
  /**
   * Result-cache tuning and test hooks (clock, bounds, store); whether it runs and where is `cache`
   * in the config. `false` turns the result tier off whatever the config says (tests, benchmarks).
   */
  readonly resultCache?: false | Omit<ResultCacheOptions, 'metrics'>;
  /** Hot tables: `false` turns them off; otherwise test hooks (clock, timer, backend). Where they live is `cache.redis_url`. */
  readonly hot?: false | InstanceHotOptions;
  /**
   * Planner threads, instead of `server.limits.planner_threads`: 0 plans on the event loop (the
   * CLI's one-off query, where nothing else waits for the loop).
   */
  readonly plannerThreads?: number;
}

export interface InstanceHotOptions {
  /** Epoch milliseconds for entry freshness (default Date.now). */
  readonly clock?: () => number;
  /** Schedules the refresh loop (default the system timer). */
  readonly timer?: Timer;
  /** Use this backend instead of the one the config names. */
  readonly backend?: HotBackend;
}

export interface InstanceMvOptions {
  /** Refresh-loop tick (ms, default 5000; 0 = no loop, refresh only through the admin API). */
  readonly tickMs?: number;
  /** Refresh lease length (ms, default 120 s). */
  readonly leaseMs?: number;
  /** How long an MV's resolved snapshot may be cached (ms, default 1000). */
  readonly resolveMaxAgeMs?: number;
  /** Snapshot GC grace (ms, default 10 min). */
  readonly gcGraceMs?: number;
  /** Writer identity in the refresh catalog (default host:pid:random). */
  readonly writer?: string;
  /**
   * Fault injection for crash and pause tests (env SHOAL_MV_FAULT_COMMIT_DELAY_MS): wait this long
   * after a snapshot is written and before its fenced commit. Never set in production.
   */
  readonly commitDelayMs?: number;
  /**
   * Fault injection for quiescence tests (env SHOAL_MV_FAULT_LOCAL_BUILD_DELAY_MS): wait this long
   * after each materialization of a distributed MV, before its inputs are compared again.
   */
  readonly localBuildDelayMs?: number;
}

interface CatalogState extends PlanCatalog {
  readonly epoch: number;
}

const DIRECT_DIALECT: Readonly<Record<string, SourceDialect>> = { postgres: 'postgresql', mysql: 'mysql', sqlite: 'sqlite' };

export class ShoalInstance implements QueryService {
  private state: CatalogState | undefined;
  private watch: EpochWatch | undefined;
  private readonly pool: SourcePool;
  /** This instance's materialized views (refresh, resolve, bind); see src/shoal/mv. */
  mvs: MvService | undefined;
  private mvScheduler: MvScheduler | undefined;
  private mvDb: SqlClient | undefined;
  private mvLocalDir: string | undefined;
  /** This instance's series for `/metrics`. */
  readonly metrics: MetricsRegistry;
  /** The result cache (src/shoal/cache/result-cache.ts); undefined when `cache.enabled` is false. */
  results: ResultCache | undefined;
  /** The hot-table cache (src/shoal/cache/hot-cache.ts); undefined when turned off. */
  hot: HotCache | undefined;
  /** What the admin API may register (admin.file_roots, admin.allowed_hosts; never the registry or the MV store). */
  readonly adminPolicy: AdminSourcePolicy;
  /** How the HTTP edge authenticates callers (the config's `auth:`, users and tokens of the registry). */
  auth: EdgeAuth | undefined;
  private identities: IdentityStore | undefined;
  /** Where requests are planned: long texts in worker threads, off the event loop (planner-pool.ts). */
  private readonly planner: PlannerPool;
  /** Plans by everything they depend on (plan-cache.ts): a repeat, or a query differing only in liftable literals, is not planned again. */
  readonly plans: PlanCache;
  private generation = 0;

  private constructor(
    readonly registry: Registry,
    readonly engine: Engine,
    private readonly options: InstanceOptions,
  ) {
    this.pool = new SourcePool(options.env ?? process.env, { statementTimeoutMs: requestTimeoutMs(limitsOf(options.config)) });
    this.metrics = options.metrics ?? new MetricsRegistry();
    this.planner = new PlannerPool({ threads: options.plannerThreads ?? limitsOf(options.config).planner_threads, metrics: this.metrics });
    this.plans = new PlanCache({ size: limitsOf(options.config).plan_cache_size, metrics: this.metrics });
    const env = options.env ?? process.env;
    let mvStoreDir: string | undefined;
    try {
      mvStoreDir = storeDirectory(options.config.stateful.materialize_store_url ?? env.PROVISA_MATERIALIZE_URL, options.baseDir);
    } catch {
      // an unusable store URL is reported by openMvs; the store then holds nothing to protect
    }
    this.adminPolicy = new AdminSourcePolicy({
      admin: options.config.admin,
      baseDir: options.baseDir,
      registryUrl: options.config.stateful.control_plane.tenant_url ?? EMBEDDED_REGISTRY_URL,
      ...(mvStoreDir === undefined ? {} : { mvStoreDir }),
    });
  }

  static async start(options: InstanceOptions): Promise<ShoalInstance> {
    const url = options.registryUrl ?? options.config.stateful.control_plane.tenant_url ?? EMBEDDED_REGISTRY_URL;
    const registry = await openRegistry(url, { baseDir: options.baseDir });
    let engine: Engine | undefined;
    let instance: ShoalInstance | undefined;
    try {
      if (options.importConfig ?? true) await writeConfigCatalog(registry, options);
      const limits = limitsOf(options.config);
      engine = options.config.stateful.federation_engine === 'trino'
        ? await openTrinoEngine(options, requestTimeoutMs(limits))
        : await DuckDbEngine.create({
          env: options.env ?? process.env,
          sourceStatementTimeoutMs: requestTimeoutMs(limits),
          ...(limits.memory_limit === undefined ? {} : { memoryLimit: limits.memory_limit }),
          ...(limits.max_temp_directory_size === undefined ? {} : { maxTempDirectorySize: limits.max_temp_directory_size }),
        });
      instance = new ShoalInstance(registry, engine, options);
      instance.identities = await openIdentityStore(url, registry.identity, { baseDir: options.baseDir });
      const authConfig = options.config.auth ?? DEFAULT_AUTH;
      const self = instance;
      instance.auth = {
        authenticator: createAuthenticator({ auth: authConfig, store: instance.identities, baseDir: options.baseDir }),
        config: authConfig,
        store: instance.identities,
        roles: async () => self.state?.model.roles ?? [],
      };
      // both cache tiers are namespaced by the registry's deployment id: fleets sharing one Redis stay apart
      if (options.resultCache !== false) {
        instance.results = await ResultCache.open(options.config.stateful.cache, { deployment: registry.deploymentId, ...options.resultCache, metrics: instance.metrics });
      }
      instance.hot = await instance.openHot();
      await instance.openMvs(url);
      await instance.rebuild();
      instance.watch = await watchEpoch(
        registry,
        { intervalMs: options.pollMs ?? 2000, initialEpoch: instance.state?.epoch ?? 0, onError: options.onError ?? (() => undefined) },
        () => instance!.rebuild(),
      );
      instance.mvScheduler?.start();
      instance.hot?.start();
      return instance;
    } catch (e) {
      await instance?.planner.close().catch(() => undefined);
      await instance?.results?.close().catch(() => undefined);
      await instance?.hot?.close().catch(() => undefined);
      await instance?.mvDb?.close().catch(() => undefined);
      await instance?.identities?.close().catch(() => undefined);
      await engine?.close().catch(() => undefined);
      await registry.close().catch(() => undefined);
      throw e;
    }
  }

  /** Re-derive everything from the registry: the engine catalog and the governance catalog. */
  async rebuild(): Promise<void> {
    const snap = await this.registry.snapshot();
    const model = withAbsolutePaths(snap.catalog, this.options.baseDir);
    const supported = model.sources.filter((s) => isEngineReachable(s));
    const entries = catalogEntries(
      model.tables.filter((t) => supported.some((s) => s.id === t.source_id)),
      supported,
    );
    const report = await this.engine.reconcile(entries);
    for (const f of report.failed) {
      this.options.onError?.(shoalErrorFrom(f.code, `catalog entry ${f.entry}: ${f.message}`));
    }
    await this.mvs?.sync(model);
    this.state = { epoch: snap.epoch, generation: ++this.generation, model, governance: governanceOf(model) };
    const reachable = new Set(supported.map((s) => s.id));
    await this.hot?.setCandidates(hotCandidates(model, this.options.config.stateful.hot_tables, (t) => reachable.has(t.source_id)));
  }

  /** The hot-table cache over Redis (`cache.redis_url`) or in process; its loads read the live relation through the engine. */
  private async openHot(): Promise<HotCache | undefined> {
    const o = this.options.hot;
    if (o === false) return undefined;
    if (this.engine.name === 'trino') {
      // hot copies are tables resident in the engine between queries: Trino holds none, so every query reads live (S5: same answers)
      this.options.onError?.(new ShoalError('HOT_TABLES_OFF', 'hot tables are off on the Trino engine: every query reads the live source', {
        where: 'hot_tables',
        hint: 'hot copies are DuckDB-resident; use federation_engine: duckdb for small tables served from memory, or ignore this notice',
      }));
      return undefined;
    }
    const redisUrl = this.options.config.stateful.cache.redis_url;
    const onError = this.options.onError ?? (() => undefined);
    let backend = o?.backend;
    if (!backend) {
      if (redisUrl) {
        // an outage means "serve live", not a log line per retry
        const redis = new RedisHotBackend(redisUrl, { onError: () => undefined, namespace: this.registry.deploymentId });
        await redis.ready();
        backend = redis;
      } else backend = new MemoryHotBackend(o?.clock);
    }
    const engine = this.engine;
    const drain = async (sql: string, signal: AbortSignal, spec?: HotCandidate) => {
      const batches = [];
      const pushdown = spec ? [{ table: { sourceId: spec.table.source_id, schema: spec.table.schema, table: spec.table.table }, columns: spec.table.columns.map((c) => c.name) }] : undefined;
      for await (const b of engine.execute(sql, pushdown ? { pushdown, signal } : { signal })) batches.push(b);
      return { columns: batches[0]?.columns ?? [], rows: batches.flatMap((b) => b.rows) };
    };
    const relation = (t: TableConfig) => engineNameWithMvs(t).map((p) => `"${p.replace(/"/g, '""')}"`).join('.');
    const resident = engine.resident;
    if (!resident) return undefined; // an engine that cannot keep tables between queries has no hot tier
    return new HotCache({
      backend,
      bounds: this.options.config.stateful.hot_tables,
      metrics: this.metrics,
      onError: (e) => onError(new ShoalError('HOT_LOAD_FAILED', `hot table load failed: ${(e as Error).message}`, { cause: e })),
      ...(o?.clock ? { clock: o.clock } : {}),
      ...(o?.timer ? { timer: o.timer } : {}),
      loader: {
        count: async (c, signal) => {
          const n = await this.countDirect(c.table, signal);
          if (n !== undefined) return n;
          return Number((await drain(`SELECT count(*) FROM ${relation(c.table)}`, signal)).rows[0]?.[0] ?? 0);
        },
        load: async (c, limit, signal) => {
          const cols = c.table.columns.map((col) => `"${col.name.replace(/"/g, '""')}"`).join(', ');
          return drain(`SELECT ${cols} FROM ${relation(c.table)} LIMIT ${limit}`, signal, c);
        },
        probe: (c, signal) =>
          readHotSignal(c.signal, {
            fileStat: async (path) => {
              try {
                const s = await stat(path, { bigint: true });
                return { size: s.size, mtimeNs: s.mtimeNs };
              } catch (e) {
                if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
                throw e;
              }
            },
            maxWatermark: async (column) => {
              const direct = await this.maxDirect(c.table, column, signal);
              if (direct !== undefined) return direct.value;
              const m = await drain(`SELECT max("${column.replace(/"/g, '""')}") FROM ${relation(c.table)}`, signal, { ...c, table: { ...c.table, columns: c.table.columns.filter((x) => x.name === column) } });
              return m.rows[0]?.[0] ?? null;
            },
          }),
        install: (name, body) => resident.create(name, body),
        drop: (name) => resident.drop(name),
      },
    });
  }

  /** A table's row count asked of its own source (cheap) when it has a direct driver; undefined otherwise. */
  private async countDirect(t: TableConfig, signal: AbortSignal): Promise<number | undefined> {
    const r = await this.askDirect(t, () => 'count(*)', signal);
    return r === undefined ? undefined : Number(r.value ?? 0);
  }

  /** `MAX(column)` asked of the table's own source when it has a direct driver (a hot table's watermark signal). */
  private maxDirect(t: TableConfig, column: string, signal: AbortSignal): Promise<{ readonly value: unknown } | undefined> {
    return this.askDirect(t, (d) => `max(${quoteIdent(d, column)})`, signal);
  }

  /** One aggregate over a table, run on its own source; undefined when the source has no direct driver. */
  private async askDirect(t: TableConfig, aggregate: (d: SourceDialect) => string, signal: AbortSignal): Promise<{ readonly value: unknown } | undefined> {
    const source = this.state?.model.sources.find((s) => s.id === t.source_id);
    const direct = source ? directDialectOf(source.type) : undefined;
    const found = this.state?.governance.resolveTable([t.domain_id.toLowerCase(), (t.alias ?? t.table).toLowerCase()]);
    if (!source || !direct || found?.length !== 1) return undefined;
    const dialect = DIRECT_DIALECT[direct.dialect]!;
    const { schema, table } = found[0]!.sourceName;
    const from = schema === undefined ? quoteIdent(dialect, table) : `${quoteIdent(dialect, schema)}.${quoteIdent(dialect, table)}`;
    const r = await this.pool.driver(dialect, source).query(`SELECT ${aggregate(dialect)} FROM ${from}`, [], signal);
    return { value: r.rows[0]?.[0] ?? null };
  }

  /** `GET /admin/cache`: the hot tier's backend and per-table status (null when hot tables are off). */
  cacheStatus(): { readonly hot: { readonly backend: 'redis' | 'memory'; readonly healthy: boolean; readonly tables: readonly HotStatus[] } | null } {
    return { hot: this.hot ? { backend: this.hot.backendKind, healthy: this.hot.healthy(), tables: this.hot.status() } : null };
  }

  /**
   * Invalidate hot tables (one by its key `<domain>.<table>`, or all) on every instance sharing
   * the backend, and the result cache with them. `propagated` is false when the shared backend
   * was unreachable (this instance dropped its copies; peers serve live until it is back).
   */
  async invalidateCaches(table?: string): Promise<{ readonly propagated: boolean }> {
    const r = (await this.hot?.invalidate(table)) ?? { propagated: true };
    await this.results?.invalidate(table);
    return r;
  }

  /** The MV service over the registry's database and the shared snapshot store, and its refresh loop. */
  private async openMvs(registryUrl: string): Promise<void> {
    const env = this.options.env ?? process.env;
    const o = this.options.mv ?? {};
    const num = (v: string | undefined): number | undefined => (v === undefined || v === '' || !Number.isFinite(Number(v)) ? undefined : Number(v));
    const leaseMs = o.leaseMs ?? num(env.SHOAL_MV_LEASE_MS);
    const tickMs = o.tickMs ?? num(env.SHOAL_MV_TICK_MS) ?? 5000;
    const commitDelayMs = o.commitDelayMs ?? num(env.SHOAL_MV_FAULT_COMMIT_DELAY_MS);
    const localBuildDelayMs = o.localBuildDelayMs ?? num(env.SHOAL_MV_FAULT_LOCAL_BUILD_DELAY_MS);
    this.mvDb = await openIdentityCheckedClient(registryUrl, this.registry.identity, { baseDir: this.options.baseDir, max: 2 });
    let store: SnapshotStore;
    try {
      store = await SnapshotStore.open(storeDirectory(this.options.config.stateful.materialize_store_url ?? env.PROVISA_MATERIALIZE_URL, this.options.baseDir));
    } catch (e) {
      if (!(e instanceof ShoalError)) throw e;
      this.options.onError?.(e);
      store = SnapshotStore.refusing(e); // MVs are served live; every refresh fails with this error
    }
    // distributed MVs: this instance's own scratch space, gone with the process (S1)
    this.mvLocalDir = join(tmpdir(), `shoal-mv-local-${process.pid}-${randomBytes(4).toString('hex')}`);
    this.mvs = await MvService.open({
      db: this.mvDb,
      store,
      engine: this.engine,
      ...(leaseMs === undefined ? {} : { leaseMs }),
      ...(o.writer === undefined ? {} : { writer: o.writer }),
      ...(o.resolveMaxAgeMs === undefined ? {} : { resolveMaxAgeMs: o.resolveMaxAgeMs }),
      ...(o.gcGraceMs === undefined ? {} : { gcGraceMs: o.gcGraceMs }),
      ...(commitDelayMs ? { beforeCommit: () => new Promise<void>((r) => setTimeout(r, commitDelayMs)) } : {}),
      ...(localBuildDelayMs ? { afterLocalBuild: () => new Promise<void>((r) => setTimeout(r, localBuildDelayMs)) } : {}),
      localStore: await SnapshotStore.open(this.mvLocalDir),
      ...(this.options.onError ? { onNotQuiescent: this.options.onError, onSnapshotUnreadable: this.options.onError } : {}),
    });
    if (tickMs > 0) {
      const mvs = this.mvs;
      this.mvScheduler = new MvScheduler(
        { candidates: () => mvs.candidates(), refresh: (id) => mvs.refresh(id), afterTick: async () => void (await mvs.collectGarbage()) },
        { intervalMs: tickMs, ...(this.options.onError ? { onError: this.options.onError } : {}) },
      );
    }
  }

  /** Who owns the catalog (`control_plane.catalog`): the admin API refuses catalog mutations unless `registry`. */
  get catalogOwner(): CatalogOwner {
    return this.options.config.stateful.control_plane.catalog;
  }

  /** The epoch the served catalog was built at. */
  get epoch(): number | undefined {
    return this.state?.epoch;
  }

  /** Poll the registry now (tests, admin mutations on this instance). */
  async refresh(): Promise<void> {
    await this.watch?.poll();
  }

  isReady(): boolean {
    return this.state !== undefined;
  }

  private draining = false;

  /** Begins a graceful shutdown: `/ready` turns 503 at once; queries are still served until the server closes. */
  drain(): void {
    this.draining = true;
  }

  isDraining(): boolean {
    return this.draining;
  }

  get requestTimeoutMs(): number {
    return requestTimeoutMs(limitsOf(this.options.config));
  }

  get maxConcurrentQueries(): number {
    return limitsOf(this.options.config).max_concurrent_queries;
  }

  async health(): Promise<HealthReport> {
    const dependencies: Record<string, 'ok' | 'unavailable' | 'replaced'> = {};
    try {
      await this.registry.epoch();
      dependencies.registry = 'ok';
    } catch (e) {
      dependencies.registry = isCodedError(e) && e.code === 'REGISTRY_REPLACED' ? 'replaced' : 'unavailable';
    }
    for (const s of this.state?.model.sources ?? []) {
      if (!isEngineReachable(s)) continue;
      const h = await this.engine.health(s.id);
      dependencies[`source:${s.id}`] = h.ok ? 'ok' : 'unavailable';
    }
    return { status: Object.values(dependencies).every((d) => d === 'ok') ? 'ok' : 'degraded', dependencies };
  }

  /**
   * Answer one request within `server.limits`: a SQL text over the size limits is refused before
   * anything parses it, and the whole request (sources, engine, stream) runs under the request
   * deadline, which cancels at the engine and at every source when it passes.
   */
  async query(req: QueryRequest, signal: AbortSignal): Promise<QueryResult> {
    const limits = limitsOf(this.options.config);
    const measure = checkSqlLimits(req.sql, limits);
    const deadline = requestDeadline(signal, requestTimeoutMs(limits));
    // hot copies the query is bound to: leased until the stream ends (a superseded copy is dropped after)
    const leases: HotBinding[] = [];
    const done = (): void => {
      deadline.dispose();
      for (const b of leases.splice(0)) b.release();
    };
    try {
      const result = await this.queryWithin(req, measure.tokens, deadline, leases);
      return { ...result, batches: disposing(result.batches, done) };
    } catch (e) {
      done();
      throw e;
    }
  }

  private async queryWithin(req: QueryRequest, tokens: number, deadline: Deadline, leases: HotBinding[], rechecked = false): Promise<QueryResult> {
    const state = this.state;
    if (!state) throw new ShoalError('NOT_READY', 'the engine catalog is still being built', { hint: 'retry when /ready returns 200' });
    if (!req.role) {
      throw new ShoalError('ROLE_REQUIRED', 'no role given', { hint: 'send the X-Provisa-Role header or a "role" field (CLI: --role)' });
    }
    if (!state.model.roles.some((r) => r.id === req.role)) {
      throw new ShoalError('ROLE_UNKNOWN', `role "${req.role}" is not registered`, {
        hint: `use one of: ${state.model.roles.map((r) => r.id).join(', ') || '(no roles registered)'}`,
      });
    }
    // result cache fast path: a repeat of a cacheable request is answered before planning
    // (not for a domain-scoped request: its answer depends on the tables, known only once planned)
    const remembered = req.domains ? undefined : await this.results?.lookupRequest({ epoch: state.epoch, role: req.role, sql: req.sql, vars: req.vars });
    if (remembered) return remembered;
    // hot tables: bound (engine route only) to their resident copy; the governed subquery wraps it as
    // it wraps the live relation. The planner may run in another thread: it is given leases on the
    // copies servable now, and the tables it read are reported to the cache afterwards (which
    // schedules loads and revalidations).
    const hot = this.hot?.freshBindings();
    if (hot) leases.push(...hot.values());
    // a domain-scoped identity reads only its domains' tables; any other is unknown to it, as a missing one
    const { plan: planned, verdict, params } = await this.plans.plan(
      {
        sql: req.sql,
        role: req.role,
        vars: req.vars,
        engine: this.engine.name,
        ...(req.domains ? { domains: req.domains } : {}),
        ...(hot ? { hot: [...hot].map(([k, b]) => [k, b.relation] as const) } : {}),
        verdict: this.results !== undefined,
      },
      state.generation,
      (job) => this.planner.plan(job, state, tokens, deadline.signal),
    );
    // planning on the event loop cannot be interrupted: a deadline that passed meanwhile is noticed here, before anything runs
    if (deadline.aborted) throw abortError(deadline);
    const inlined = planned.hot ?? [];
    // a copy the plan did not bind is not held for the query
    if (hot) for (const [key, b] of hot) if (!inlined.includes(key)) b.release();
    if (planned.route.kind === 'engine') {
      for (const key of planned.tables) this.hot?.touch(key);
      this.hot?.account(planned.tables, new Set(inlined));
    }
    // MVs the query reads are bound to their published snapshot, or to live view_sql (x-shoal-mv says which)
    const mvBound = this.mvs ? await this.mvs.bind(planned) : { sql: planned.sql, headers: {} };
    const plan = { ...planned, sql: mvBound.sql };
    const headers: Record<string, string> = { 'x-shoal-route': plan.route.kind === 'direct' ? `direct:${plan.route.sourceId}` : 'engine', ...mvBound.headers };
    if (inlined.length > 0) {
      headers['x-shoal-hot'] = inlined.join(', ');
      headers['x-shoal-hot-age'] = hotAgeHeader(inlined.map((k) => hot!.get(k)!));
    }
    // result cache: a HIT answers without running; a MISS runs live and stores the answer once read
    const mv = mvBound.headers['x-shoal-mv'];
    const cached = await this.results?.lookup(
      // bind parameters are part of what runs: two lookups sharing one parameterised text are two answers
      { epoch: state.epoch, route: headers['x-shoal-route']!, sql: params.length > 0 ? `${plan.sql}\n-- params: ${JSON.stringify(params.map(String))}` : plan.sql, userSql: req.sql, role: req.role, vars: req.vars, tables: plan.tables, ...(mv ? { mv } : {}), ...(verdict ? { userSqlVerdict: verdict } : {}) },
      state,
    );
    if (cached?.status === 'HIT') return cached.hit(headers);
    Object.assign(headers, cached?.headers);
    const keep = (r: QueryResult): QueryResult => (cached ? cached.keep(r) : r);
    // a failure to bind what governance composed (an RLS filter, a mask, a registered column) names it
    const roleId = req.role;
    const bindContext = () => ({ catalog: req.domains ? limitToDomains(state.governance, req.domains) : state.governance, roleId, tables: plan.tables, sql: req.sql, ruleName: ruleNamer(state.model) });
    // what no rule, mask or column explains is the client's when its SQL alone fails to bind too (client-sql-fault.ts)
    const explain = async (e: unknown): Promise<unknown> => {
      const ctx = bindContext();
      return explainBindFailure(e, ctx) ?? (await clientSqlFault(e, { engine: this.engine, request: { sql: req.sql, role: roleId, vars: req.vars }, catalog: ctx.catalog, signal: deadline.signal })) ?? e;
    };
    if (plan.route.kind === 'direct') {
      const route = plan.route;
      const source = state.model.sources.find((s) => s.id === route.sourceId);
      const dialect = DIRECT_DIALECT[route.dialect];
      if (!source || !dialect) throw new ShoalError('INTERNAL_ROUTE', `direct route to unknown source ${route.sourceId}`);
      const driver = this.pool.driver(dialect, source);
      // the deadline itself, not deadline.signal: no AbortSignal is made on the direct route
      const fetched = await driver.query(plan.sql, params, deadline).catch(async (e: unknown) => {
        throw await explain(e);
      });
      const { typed, classes } = directResultColumns(plan.columns, fetched.columns);
      return keep({
        columns: typed,
        headers,
        tables: plan.tables,
        batches: oneBatch(() => normalizeRows(fetched.rows, classes)),
      });
    }
    const signal = deadline.signal;
    const batches = this.engine.execute(plan.sql, { signal, pushdown: plan.pushdown });
    // Pull the first batch now so the engine's column types are known before the response starts.
    const it = batches[Symbol.asyncIterator]();
    let first: IteratorResult<RowBatch>;
    try {
      first = await it.next();
    } catch (e) {
      // a snapshot that fails to read is quarantined (and rebuilt), and the query answered again: live
      if (!rechecked && this.mvs && mvBound.snapshots && !signal.aborted && (await this.mvs.recheck(mvBound))) return this.queryWithin(req, tokens, deadline, leases, true);
      throw await explain(e);
    }
    const engineColumns = first.done ? undefined : first.value.columns;
    const { typed, classes } = engineResultColumns(plan.columns, engineColumns);
    return keep({
      columns: typed,
      headers,
      tables: plan.tables,
      batches: (async function* () {
        let next = first;
        while (!next.done) {
          yield normalizeRows(next.value.rows, classes);
          next = await it.next();
        }
      })(),
    });
  }

  /** `GET /data/catalog`: what the role may query (hidden tables and columns absent), from the served catalog. */
  catalog(req: CatalogRequest): { readonly epoch: number | undefined; readonly tables: readonly CatalogTableInfo[] } {
    const state = this.state;
    if (!state) throw new ShoalError('NOT_READY', 'the engine catalog is still being built', { hint: 'retry when /ready returns 200' });
    const governance = req.domains ? limitToDomains(state.governance, req.domains) : state.governance;
    return { epoch: state.epoch, tables: roleCatalog(governance, req.role) };
  }

  /** `/graphql`: the role's catalog with keys and followable relationships (role-graph.ts). */
  graph(req: CatalogRequest): { readonly epoch: number | undefined; readonly tables: readonly RoleGraphTable[]; readonly rowCap?: number; readonly generation: number } {
    const state = this.state;
    if (!state) throw new ShoalError('NOT_READY', 'the engine catalog is still being built', { hint: 'retry when /ready returns 200' });
    const governance = req.domains ? limitToDomains(state.governance, req.domains) : state.governance;
    const rowCap = state.governance.role(req.role)?.rowCap;
    return { epoch: state.epoch, generation: state.generation, tables: roleGraph(governance, state.model, req.role), ...(rowCap !== undefined ? { rowCap } : {}) };
  }

  async close(): Promise<void> {
    await this.watch?.stop().catch(() => undefined);
    await this.planner.close().catch(() => undefined);
    await this.mvScheduler?.stop().catch(() => undefined);
    await this.results?.close().catch(() => undefined);
    await this.hot?.close().catch(() => undefined);
    await this.engine.close().catch(() => undefined);
    await this.pool.closeAll().catch(() => undefined);
    await this.registry.close().catch(() => undefined);
    await this.mvDb?.close().catch(() => undefined);
    await this.identities?.close().catch(() => undefined);
    if (this.mvLocalDir) await rm(this.mvLocalDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * `federation_engine: trino`: the coordinator at `federation_engine_url`, and the scratch area
 * (`federation_engine_scratch_dir`, a directory every Trino node sees at the same path) where file
 * and landed sources are written as Parquet.
 */
async function openTrinoEngine(options: InstanceOptions, sourceStatementTimeoutMs: number | undefined): Promise<Engine> {
  const st = options.config.stateful;
  if (st.federation_engine_url === undefined || st.federation_engine_scratch_dir === undefined) {
    throw new ShoalError('CONFIG_INVALID', 'federation_engine: trino needs federation_engine_url and federation_engine_scratch_dir', {
      where: st.federation_engine_url === undefined ? 'federation_engine_url' : 'federation_engine_scratch_dir',
      hint: 'set federation_engine_url to the coordinator (http://host:8080) and federation_engine_scratch_dir to a directory shared with every Trino node',
    });
  }
  return TrinoEngine.create({
    url: st.federation_engine_url,
    scratchDir: resolve(options.baseDir, st.federation_engine_scratch_dir),
    env: options.env ?? process.env,
    ...(sourceStatementTimeoutMs === undefined ? {} : { sourceStatementTimeoutMs }),
  });
}

function isEngineReachable(s: SourceConfig): boolean {
  try {
    sourceTypeOf(s);
    return true;
  } catch (e) {
    if (isCodedError(e)) return false;
    throw e;
  }
}

/**
 * The config's catalog into the registry at start, as its owner says (see InstanceOptions.importConfig).
 * In registry mode a file that no longer matches the registry is reported, never written.
 */
async function writeConfigCatalog(registry: Registry, options: InstanceOptions): Promise<void> {
  const catalog = withAbsolutePaths(catalogOf(options.config), options.baseDir);
  if (options.config.stateful.control_plane.catalog === 'config') {
    await registry.applyConfig(catalog);
    return;
  }
  try {
    // only a registry nothing was ever written to: concurrent first starts seed it once
    await registry.applyConfig(catalog, { expectedEpoch: 0 });
    return;
  } catch (e) {
    if (!isCodedError(e) || e.code !== 'REGISTRY_EPOCH_MISMATCH') throw e;
  }
  const { entries } = await registry.plan(catalog);
  if (entries.length > 0) {
    options.onError?.(new ShoalError('CATALOG_FILE_NOT_APPLIED', `the config file's catalog differs from the registry in ${entries.length} object(s); with control_plane.catalog: registry the admin API owns the catalog and the file only seeds an empty registry, so the registry is served`, {
      hint: 'shoal registry plan --config FILE shows the difference; shoal registry apply --config FILE makes the registry exactly the file',
    }));
  }
}
