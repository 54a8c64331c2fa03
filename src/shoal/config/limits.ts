/**
 * The limits no role can exceed (`server.limits` in the config): how long one request may run at
 * the engine and at every source, how much memory and spill space the engine may use, how large a
 * SQL text may be before it is even parsed, and how many requests one principal may have running
 * at once. They are operator settings: no role, session value or SQL text can raise them.
 */
import { z } from 'zod';
import type { KeyCatalog } from './config-schema.js';
import { deepFreeze } from './model.js';

export interface LimitsConfig {
  /** Seconds a request may run (planning, every source statement, the engine, the stream). Upstream's key. */
  readonly request_timeout: number;
  /** Bytes of SQL text (UTF-8) accepted; longer is refused before parsing. */
  readonly max_sql_bytes: number;
  /** Literals (strings and numbers) accepted in one SQL text. */
  readonly max_sql_literals: number;
  /** Lexical tokens accepted in one SQL text: parsing cost grows with them, faster than linearly for long boolean chains. */
  readonly max_sql_tokens: number;
  /** Nesting depth of parentheses and brackets. */
  readonly max_sql_depth: number;
  /** Requests one principal may have running at once on one instance; more are answered 429. */
  readonly max_concurrent_queries: number;
  /** Worker threads that plan long SQL texts off the event loop (src/shoal/instance/planner-pool.ts); 0 plans on it. */
  readonly planner_threads: number;
  /** Plans kept by the plan cache (src/shoal/instance/plan-cache.ts), least recently used dropped first; 0 turns it off. */
  readonly plan_cache_size: number;
  /** DuckDB `memory_limit` (e.g. `2GB`); absent = DuckDB's default (80% of RAM). */
  readonly memory_limit?: string;
  /** DuckDB `max_temp_directory_size`, the spill space a query may use (e.g. `10GB`); absent = DuckDB's default. */
  readonly max_temp_directory_size?: string;
}

/** The defaults: a text at the SQL limits plans in about a second or less, in a planner thread (docs/shoal.md, Limits). */
export const DEFAULT_LIMITS: LimitsConfig = deepFreeze({
  request_timeout: 60,
  max_sql_bytes: 65_536,
  max_sql_literals: 1_000,
  max_sql_tokens: 2_000,
  max_sql_depth: 32,
  max_concurrent_queries: 16,
  planner_threads: 2,
  plan_cache_size: 1_000,
});

/** A byte size as DuckDB settings take it: a number and a unit (`512MB`, `2GB`, `1.5GiB`). */
export const BYTE_SIZE = /^\s*\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$/i;

/** A config's limits, or the defaults when it names none. */
export function limitsOf(config: { readonly limits?: LimitsConfig }): LimitsConfig {
  return config.limits ?? DEFAULT_LIMITS;
}

/** The milliseconds of `request_timeout`. */
export function requestTimeoutMs(limits: LimitsConfig): number {
  return Math.max(1, Math.round(limits.request_timeout * 1000));
}

const optional = <T extends z.ZodType>(t: T) => t.nullish().transform((v) => v ?? undefined);
/** Numbers may arrive as strings after env interpolation. */
const positiveInt = z.preprocess((v) => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v), z.number().int().min(1));
const threadCount = z.preprocess(
  (v) => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v),
  z.number().int().min(0).max(16, { message: 'must be at most 16 (planning threads, not a thread per request)' }),
);
const seconds = z.preprocess(
  (v) => (typeof v === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v),
  z.number().positive().max(86_400, { message: 'must be at most 86400 seconds (a day)' }),
);
const byteSize = z.string().regex(BYTE_SIZE, { message: 'expected a size such as 512MB, 2GB or 1.5GiB' });

/** `server.limits`: upstream's `request_timeout`, and the limits shoal adds. */
export const limitsSchema = z.object({
  request_timeout: optional(seconds),
  max_sql_bytes: optional(positiveInt.pipe(z.number().max(4 * 1024 * 1024, { message: 'must be at most 4194304 (the request body limit)' }))),
  max_sql_literals: optional(positiveInt),
  max_sql_tokens: optional(positiveInt),
  max_sql_depth: optional(positiveInt),
  max_concurrent_queries: optional(positiveInt),
  planner_threads: optional(threadCount),
  plan_cache_size: optional(z.preprocess((v) => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v), z.number().int().min(0).max(1_000_000))),
  memory_limit: optional(byteSize),
  max_temp_directory_size: optional(byteSize),
});

export const LIMITS_KEYS: KeyCatalog = {
  kind: 'server.limits',
  known: Object.keys(limitsSchema.shape),
  unsupported: ['default_row_limit', 'trino_query_timeout', 'engine_query_timeout', 'retry_budget_secs'],
};

/** The normalised limits: the defaults, overridden by what the config sets. */
export function normaliseLimits(raw: z.output<typeof limitsSchema> | undefined): LimitsConfig {
  const set = Object.fromEntries(Object.entries(raw ?? {}).filter(([, v]) => v !== undefined));
  return deepFreeze({ ...DEFAULT_LIMITS, ...set }) as LimitsConfig;
}
