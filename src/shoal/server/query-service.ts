import type { EdgeAuth } from '../auth/edge-auth.js';
import type { RoleGraphTable } from '../sql/role-graph.js';
import type { MetricsRegistry } from './metrics.js';

/**
 * What the HTTP layer needs from an instance. The instance (src/shoal/instance) implements it
 * over the registry, engine and SQL pipeline; the server only speaks HTTP.
 */
export interface ColumnInfo {
  readonly name: string;
  readonly type: string;
}

export interface QueryRequest {
  readonly sql: string;
  readonly role: string | undefined;
  readonly vars: Readonly<Record<string, string>>;
  /** The only domains the query may read (a `role_id:domain_id` assignment); absent = what the role reaches. */
  readonly domains?: readonly string[];
}

export interface QueryResult {
  readonly columns: readonly ColumnInfo[];
  /** Row batches in order; values are plain JS (see json-value.ts for the wire form). */
  readonly batches: AsyncIterable<readonly (readonly unknown[])[]>;
  /** Extra response headers (route, cache status, "served live" for an unmaterialized MV…). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Keys (`<domain>.<table>`) of the catalog tables the answer was read from (the audit log records them). */
  readonly tables?: readonly string[];
}

/** One table of `GET /data/catalog`: what the caller's role may query of it. */
export interface CatalogTableInfo {
  /** The name queries use: `<domain>.<table>`. */
  readonly table: string;
  readonly schema: string;
  readonly name: string;
  readonly columns: readonly { readonly name: string; readonly type: string; readonly masked: boolean }[];
}

export interface CatalogRequest {
  readonly role: string;
  /** As `QueryRequest.domains`. */
  readonly domains?: readonly string[];
}

export interface HealthReport {
  readonly status: 'ok' | 'degraded';
  /** `replaced`: the registry is no longer the one this instance opened (REGISTRY_REPLACED); writes are refused. */
  readonly dependencies: Readonly<Record<string, 'ok' | 'unavailable' | 'replaced'>>;
}

export interface QueryService {
  /** The service's own metrics registry (cache tiers report into it); `/metrics` serves it when the app is given none. */
  readonly metrics?: MetricsRegistry;
  /** Requests one principal may have running at once (`server.limits.max_concurrent_queries`); default 16. */
  readonly maxConcurrentQueries?: number;
  /** `server.limits.request_timeout` in ms, for a route that runs several statements under one deadline (`/graphql`); absent: each statement's own. */
  readonly requestTimeoutMs?: number;
  /** How the HTTP edge authenticates callers of this service (absent: every request is refused with 401). */
  readonly auth?: EdgeAuth;
  /** True once the engine catalog has been built from the registry. */
  isReady(): boolean;
  /** True once a graceful shutdown began: `/ready` answers 503 so balancers stop sending, queries are still served. */
  isDraining?(): boolean;
  health(): Promise<HealthReport>;
  query(req: QueryRequest, signal: AbortSignal): Promise<QueryResult>;
  /** The tables and columns a role may query (hidden ones absent), for `GET /data/catalog`; absent: the route answers 404. */
  catalog?(req: CatalogRequest): { readonly epoch: number | undefined; readonly tables: readonly CatalogTableInfo[] };
  /** The same catalog with primary keys and the relationships the role can follow, for `/graphql`; absent: the route answers 404. */
  graph?(req: CatalogRequest): { readonly epoch: number | undefined; readonly tables: readonly RoleGraphTable[]; readonly rowCap?: number; readonly generation?: number };
}
