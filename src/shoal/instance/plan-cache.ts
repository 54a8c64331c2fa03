/**
 * The plan cache: a request whose plan inputs were seen before skips parse → govern → route →
 * generate. It is bounded (LRU, `server.limits.plan_cache_size`) and lives in the process only.
 *
 * The key holds everything a plan depends on, so a hit is the plan the planner would make now:
 * the catalog generation (rebuilt at every registry epoch: tables, roles, grants, RLS rules and
 * masks all come from it), the acting role, the domains it is limited to, every session value
 * (row filters and masks read them), the engine dialect, the hot-table copies that may be bound
 * (their relation names change with each copy), whether a result-cache verdict is wanted, and the
 * SQL text. MV state is not in the key because MVs are bound after planning, per request. A plan
 * that read the clock is never stored: it holds the instant as a literal.
 *
 * Literal lifting (literal-lift.ts): texts that differ only in liftable literals share one
 * template. A template is made by planning the text with marker literals, and it is kept only if
 * filling the original literals back in gives exactly the plan of the original text (SQL, columns,
 * tables, route, row cap, pushdown, hot bindings): a literal that changed anything but its own
 * place in the output fails the check, and that shape is then cached by exact text only.
 */
import { isDeepStrictEqual } from 'node:util';
import type { SqlLiteral } from '../sources/sql-literal.js';
import type { GovernedPlan } from '../sql/index.js';
import { type LiftedText, type LiteralClass, liftLiterals, withLiterals } from './literal-lift.js';
import type { PlanJob, PlanOutcome } from './plan-job.js';

export const PLAN_CACHE_TOTAL = 'shoal_plan_cache_total';
export const PLAN_CACHE_ENTRIES = 'shoal_plan_cache_entries';

/** A plan ready to run: its SQL, and the bind parameters of that SQL (direct route; empty otherwise). */
export interface PreparedPlan extends PlanOutcome {
  readonly params: readonly SqlLiteral[];
}

export interface PlanCacheMetrics {
  inc(name: string, labels?: Readonly<Record<string, string>>, by?: number, help?: string): void;
  set(name: string, value: number, labels?: Readonly<Record<string, string>>, help?: string): void;
}

/** A template: a plan whose lifted literals are markers, one per literal of the shape. */
interface Template {
  readonly kind: 'template';
  readonly outcome: PlanOutcome;
  readonly markers: readonly string[];
  /**
   * The plan's SQL split at its markers once (markerRe, left to right): a fill joins `parts` with
   * each gap's value, with no regex run per request. `parts` has one more element than `gaps`.
   */
  readonly parts: readonly string[];
  readonly gaps: readonly Gap[];
}

/** Where a marker stood in a template's SQL: its literal's index and class, and whether it was quoted. */
interface Gap {
  readonly index: number;
  readonly cls: LiteralClass;
  readonly quoted: boolean;
}

type Entry = { readonly kind: 'exact'; readonly outcome: PlanOutcome } | Template | { readonly kind: 'not_liftable' };

/** Markers: values no query is likely to hold, each in its literal's class (int4, int8, plain string). */
function markerOf(cls: LiteralClass, i: number): string {
  if (cls === 'int4') return String(2013000000 + i);
  if (cls === 'int8') return String(9013000000000000000n + BigInt(i));
  return `zq9lit${i}zq`;
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Marker `m` in generated SQL: a string marker with its quotes, an integer as a whole number. */
const markerRe = (markers: readonly string[]): RegExp =>
  new RegExp(markers.map((m) => (/^\d+$/.test(m) ? `(?<![\\w.])${m}(?![\\w.])` : `'${escapeRe(m)}'`)).join('|'), 'g');

/** The value a pushdown predicate holds for a literal of this class (what derivePushdown gives for the original). */
function substituteValues(v: unknown, byMarker: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(v)) return v.map((x) => substituteValues(x, byMarker));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substituteValues(x, byMarker)]));
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint') {
    const hit = byMarker.get(String(v));
    if (hit === undefined) return v;
    return typeof v === 'string' ? hit : typeof v === 'bigint' ? BigInt(hit) : Number(hit);
  }
  return v;
}

function fill(template: Template, values: readonly string[], bind: boolean): PreparedPlan {
  const { plan } = template.outcome;
  const params: SqlLiteral[] = [];
  const dialect = plan.route.kind === 'direct' ? plan.route.dialect : undefined;
  // mysql2 fills `?` client-side, everywhere in the text: only bind when the SQL has no other `?`
  const bindHere = bind && (dialect === 'postgres' || (dialect === 'mysql' && !plan.sql.includes('?')));
  const { parts, gaps } = template;
  let sql = parts[0]!;
  for (let k = 0; k < gaps.length; k++) {
    const { index, cls, quoted } = gaps[k]!;
    const value = values[index]!;
    let piece: string;
    // bind parameters on the direct route: PostgreSQL types an unadorned `$n` from its context as it
    // types a string literal; an integer keeps the type its literal had
    if (bindHere && dialect === 'postgres') {
      params.push(cls === 'string' ? value : cls === 'int4' ? Number(value) : BigInt(value));
      piece = cls === 'string' ? `$${params.length}` : `$${params.length}::${cls}`;
    } else if (bindHere && dialect === 'mysql' && cls !== 'int8') {
      params.push(cls === 'string' ? value : Number(value));
      piece = '?';
    } else piece = quoted ? `'${value}'` : value;
    sql += piece + parts[k + 1]!;
  }
  const filled: GovernedPlan = {
    ...plan,
    sql,
    ...(plan.pushdown ? { pushdown: substituteValues(plan.pushdown, new Map(template.markers.map((m, i) => [m, values[i]!]))) as GovernedPlan['pushdown'] } : {}),
  };
  return { ...template.outcome, plan: filled, params };
}

export interface PlanCacheOptions {
  /** Entries kept (0: no cache, every request is planned). */
  readonly size: number;
  readonly metrics?: PlanCacheMetrics;
}

/** Where the cache plans on a miss (the planner pool, on the event loop or a thread). */
export type Planner = (job: PlanJob) => Promise<PlanOutcome>;

export class PlanCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: PlanCacheOptions) {
    options.metrics?.inc(PLAN_CACHE_TOTAL, { outcome: 'hit' }, 0, 'plan cache lookups, by outcome (a hit skips parse, govern and generate)');
    options.metrics?.inc(PLAN_CACHE_TOTAL, { outcome: 'miss' }, 0);
    options.metrics?.set(PLAN_CACHE_ENTRIES, 0, {}, 'plans held by the plan cache');
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * The plan of `job` in catalog generation `generation`: from the cache, or planned by `planner`
   * (and stored). Errors are the planner's; a failed plan is not stored.
   */
  async plan(job: PlanJob, generation: number, planner: Planner): Promise<PreparedPlan> {
    if (this.options.size <= 0) return { ...(await planner(job)), params: [] };
    const lifted = liftLiterals(job.sql);
    const base = keyOf(job, generation);
    const shapeKey = lifted ? `${base}\u0001L${lifted.shape}` : undefined;
    const shaped = shapeKey ? this.get(shapeKey) : undefined;
    if (shaped?.kind === 'template') {
      this.count('hit');
      return fill(shaped, lifted!.literals.map((l) => l.value), true);
    }
    const exactKey = `${base}\u0001E${job.sql}`;
    const exact = this.get(exactKey);
    if (exact?.kind === 'exact') {
      this.count('hit');
      return { ...exact.outcome, params: [] };
    }
    this.count('miss');
    const outcome = await planner(job);
    if (outcome.readsClock) return { ...outcome, params: [] };
    if (lifted && shapeKey && shaped === undefined) {
      const template = await this.template(job, lifted, outcome, planner);
      this.put(shapeKey, template ?? { kind: 'not_liftable' });
      if (template) return fill(template, lifted.literals.map((l) => l.value), true);
    }
    this.put(exactKey, { kind: 'exact', outcome });
    return { ...outcome, params: [] };
  }

  /** Drop every entry (tests; entries of older generations also age out by themselves). */
  clear(): void {
    this.entries.clear();
    this.options.metrics?.set(PLAN_CACHE_ENTRIES, 0);
  }

  /** The shape's template, if filling the original literals back in gives exactly `original`. */
  private async template(job: PlanJob, lifted: LiftedText, original: PlanOutcome, planner: Planner): Promise<Template | undefined> {
    const markers = lifted.literals.map((l, i) => markerOf(l.cls, i));
    const re = markerRe(markers);
    // Filling replaces every marker in the plan. The parts of a plan that are not lifted literals
    // (the text's other tokens, RLS filters with their session values, masks) are the same in the
    // original plan: if a marker already stands there, a later fill would rewrite it (a session
    // value equal to a marker would take the next request's literal). Such a key is exact-text only.
    const pushdownText = original.plan.pushdown ? JSON.stringify(original.plan.pushdown) : '';
    // (search, not test: it ignores and keeps the global regex's lastIndex)
    if (original.plan.sql.search(re) >= 0 || markers.some((m) => pushdownText.includes(m))) return undefined;
    let marked: PlanOutcome;
    try {
      marked = await planner({ ...job, sql: withLiterals(job.sql, lifted, markers) });
    } catch {
      return undefined; // the markers do not plan (an ordinal, a name the text reads): exact text only
    }
    if (marked.readsClock) return undefined;
    // the result-cache verdict is the original text's (it reads session variable names, never lifted)
    const slots = new Map(lifted.literals.map((l, i) => [markers[i]!, { index: i, cls: l.cls }] as const));
    const parts: string[] = [];
    const gaps: Gap[] = [];
    let at = 0;
    for (const m of marked.plan.sql.matchAll(re)) {
      const quoted = m[0].startsWith("'");
      const slot = slots.get(quoted ? m[0].slice(1, -1) : m[0])!;
      parts.push(marked.plan.sql.slice(at, m.index));
      gaps.push({ index: slot.index, cls: slot.cls, quoted });
      at = m.index + m[0].length;
    }
    parts.push(marked.plan.sql.slice(at));
    const template: Template = { kind: 'template', outcome: { ...marked, ...(original.verdict ? { verdict: original.verdict } : {}) }, markers, parts, gaps };
    const check = fill(template, lifted.literals.map((l) => l.value), false);
    return isDeepStrictEqual(check.plan, original.plan) ? template : undefined;
  }

  private get(key: string): Entry | undefined {
    const e = this.entries.get(key);
    if (e !== undefined) {
      // most recently used last
      this.entries.delete(key);
      this.entries.set(key, e);
    }
    return e;
  }

  private put(key: string, e: Entry): void {
    this.entries.delete(key);
    this.entries.set(key, e);
    while (this.entries.size > this.options.size) this.entries.delete(this.entries.keys().next().value!);
    this.options.metrics?.set(PLAN_CACHE_ENTRIES, this.entries.size);
  }

  private count(outcome: 'hit' | 'miss'): void {
    this.options.metrics?.inc(PLAN_CACHE_TOTAL, { outcome });
  }
}

/** Everything but the text a plan depends on (see the module comment). */
export function keyOf(job: PlanJob, generation: number): string {
  // the common request (no domain scope, no session values, no hot copy bound): the same text
  // JSON.stringify gives below, without building and sorting the arrays
  if (job.domains === undefined && (job.hot === undefined || job.hot.length === 0)) {
    if (Object.keys(job.vars).length === 0) return `[${generation},${JSON.stringify(job.role)},null,"${job.engine ?? 'duckdb'}",[],${job.hot ? '[]' : 'null'},${job.verdict}]`;
  }
  const vars = Object.entries(job.vars).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const hot = [...(job.hot ?? [])].map(([k, parts]) => [k, [...parts]]).sort(([a], [b]) => (String(a) < String(b) ? -1 : 1));
  return JSON.stringify([
    generation,
    job.role,
    job.domains ? [...job.domains].sort() : null,
    job.engine ?? 'duckdb',
    vars,
    job.hot ? hot : null,
    job.verdict,
  ]);
}
