import type { BatchLoader } from './batch-loader.js';

/** One row as resolvers read it: wire values by column name. */
export type GraphRow = Readonly<Record<string, unknown>>;

/** What the resolvers of one request use: the governed query path and the request's batches. */
export interface GraphContext {
  /** The role's row cap (`max_rows` or the default row limit): no statement returns more rows. */
  readonly rowCap?: number;
  /**
   * Run one statement as the request's role, with its session values plus `params`, through the
   * same path as `POST /data/sql`; rows keyed by `names` (the statement's select list, in order).
   */
  rows(sql: string, params: Readonly<Record<string, string>>, names: readonly string[]): Promise<GraphRow[]>;
  /**
   * Count `rows` rows into the answer against GRAPHQL_BOUNDS.maxResultRows; past it, throw
   * GRAPHQL_RESULT_TOO_LARGE (and every later call and statement of the request throws it too).
   */
  deliver(rows: number): void;
  /** The request's batch loader for `key`, made by `make` on first use. */
  batch(key: string, make: () => BatchLoader<readonly GraphRow[]>): BatchLoader<readonly GraphRow[]>;
}
