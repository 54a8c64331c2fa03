import { ShoalError } from '../errors.js';
import { type Data, type Node, QUERY_TYPES, allNodes, children, dataOf, identName, positionOf, typeOf } from './ast-node.js';
import { parseQuery } from './parse.js';

/** Why a query's answer can differ between two runs over the same data (study §7). */
export interface DeterminismIssue {
  readonly code:
    | 'VOLATILE'
    | 'AGG_ORDER'
    | 'ARBITRARY'
    | 'SAMPLE'
    | 'LIMIT_NO_ORDER'
    | 'LIMIT_ORDER_NOT_TOTAL'
    | 'DISTINCT_ON_NO_ORDER'
    | 'DISTINCT_ON_PARTIAL_ORDER'
    | 'WINDOW_NO_ORDER'
    | 'WINDOW_ORDER_NOT_TOTAL'
    | 'EXTERNAL_CALL';
  readonly message: string;
  readonly position?: { readonly line: number; readonly column: number };
}

export interface DeterminismReport {
  readonly ok: boolean;
  readonly issues: readonly DeterminismIssue[];
}

const VOLATILE = new Set(['now', 'current_timestamp', 'localtimestamp', 'localtime', 'current_time', 'current_date', 'transaction_timestamp',
  'statement_timestamp', 'clock_timestamp', 'timeofday', 'random', 'rand', 'setseed', 'uuid', 'gen_random_uuid', 'uuidv4', 'uuid_generate_v4',
  'current_user', 'session_user', 'user', 'current_role', 'current_schema', 'current_database', 'version', 'pg_backend_pid', 'txid_current',
  'nextval', 'currval', 'inet_client_addr', 'current_setting', 'current_catalog', 'sysdate', 'getdate', 'newid', 'localtimestamp', 'pg_sleep',
  'txid_current_if_assigned', 'inet_server_addr', 'pg_current_xact_id', 'lastval', 'setval']);
/** Bare keywords PostgreSQL reads as session functions, which the parser leaves as column references. */
const SESSION_KEYWORDS = new Set(['user', 'current_user', 'session_user', 'current_role', 'current_catalog', 'current_schema', 'system_user']);
/** Calls that reach outside the database (their answer is whatever the remote says at that moment). */
const EXTERNAL = /^(http|https|net_http|url|curl|fetch)(_|$)/;
const VOLATILE_TYPES = new Set(['random', 'rand', 'uuid', 'current_timestamp', 'current_date', 'current_time', 'current_user', 'session_user',
  'current_timestamp_l_t_z', 'localtimestamp', 'localtime', 'current_datetime', 'systimestamp', 'utc_timestamp', 'utc_time', 'current_schema',
  'randn', 'randstr', 'uniform']);
const ORDER_SENSITIVE_AGG = new Set(['string_agg', 'array_agg', 'group_concat', 'list_agg', 'listagg', 'json_agg', 'jsonb_agg', 'json_object_agg',
  'jsonb_object_agg', 'json_array_agg', 'array_concat_agg', 'first', 'last', 'xmlagg']);
const ARBITRARY = new Set(['any_value', 'arbitrary', 'first', 'last']);
const ORDER_NEEDING_WINDOW = new Set(['row_number', 'rank', 'dense_rank', 'n_tile', 'ntile', 'percent_rank', 'cume_dist', 'lag', 'lead',
  'first_value', 'last_value', 'nth_value']);

const fname = (n: Node): string => {
  const t = typeOf(n);
  return (t === 'function' || t === 'aggregate_function' ? String(dataOf(n)?.name) : t).toLowerCase();
};

export interface DeterminismOptions {
  /**
   * Unique keys of a table (by its name as written, lower-cased), each a list of column names. An
   * ORDER BY covering one of them is total; without this, only orders that cover every output
   * column or every GROUP BY key are known to be total.
   */
  readonly uniqueKeys?: (table: string) => readonly (readonly string[])[];
}

/**
 * Whether a query is deterministic: the same data gives the same answer on every run and every
 * instance (the admission rule for `distributed` materialized views, law S4). Flags volatile
 * functions (time, randomness, session, including bare keywords like `user`), calls that leave
 * the database (HTTP, schema-qualified UDFs), order-sensitive aggregates without ORDER BY,
 * arbitrary picks, sampling, LIMIT/OFFSET/FETCH without ORDER BY or with one that can tie,
 * DISTINCT ON without a tie-breaking ORDER BY, and order-dependent window functions whose window
 * has no ORDER BY or one that can tie (named windows resolved). An ORDER BY is total when it
 * covers every output column, every GROUP BY key, or a unique key given in `options`.
 * Throws ShoalError only when the text is not a single parseable query.
 */
export function checkDeterminism(sql: string, options: DeterminismOptions = {}): DeterminismReport {
  const stmt = parseQuery(sql);
  if (!QUERY_TYPES.has(typeOf(stmt))) {
    throw new ShoalError('SQL_NOT_SELECT', 'a view is a SELECT query', { hint: 'write the view as a SELECT' });
  }
  const issues: DeterminismIssue[] = [];
  const owners = new Map<Node, Node>();
  mapWindowOwners(stmt, undefined, owners);
  const named = new Map<string, Data>();
  for (const [n] of allNodes(stmt)) if (typeOf(n) === 'select') for (const w of dataOf(n).windows ?? []) named.set(identName(w.name)!, w.spec);
  for (const [n] of allNodes(stmt)) {
    const t = typeOf(n);
    const d = dataOf(n) ?? {};
    const position = positionOf(n, sql);
    const add = (code: DeterminismIssue['code'], message: string) => issues.push({ code, message, ...(position ? { position } : {}) });
    const f = fname(n);
    if ((t === 'function' || t === 'aggregate_function') && VOLATILE.has(f)) add('VOLATILE', `${f}() changes between runs`);
    else if (VOLATILE_TYPES.has(t)) add('VOLATILE', `${t.replace(/_/g, ' ')} changes between runs`);
    else if (t === 'column' && !d.table && d.name && !d.name.quoted && SESSION_KEYWORDS.has(String(d.name.name).toLowerCase())) {
      add('VOLATILE', `${String(d.name.name).toLowerCase()} depends on the session`);
    }
    if ((t === 'function' || t === 'aggregate_function') && EXTERNAL.test(f)) add('EXTERNAL_CALL', `${f}() calls outside the database`);
    if (t === 'method_call') add('EXTERNAL_CALL', 'a schema-qualified (user-defined) function may not be deterministic');
    if (ORDER_SENSITIVE_AGG.has(f) && !d.order_by?.length) add('AGG_ORDER', `${f}() without ORDER BY inside the call depends on row order`);
    if (ARBITRARY.has(f)) add('ARBITRARY', `${f}() picks an arbitrary row`);
    if ((t === 'table' && d.table_sample) || (t === 'select' && d.sample)) add('SAMPLE', 'TABLESAMPLE reads a random subset');
    if (QUERY_TYPES.has(t) || t === 'subquery') {
      const hasLimit = d.limit || d.offset || d.fetch || d.top;
      const order = d.order_by?.expressions ?? (Array.isArray(d.order_by) ? d.order_by : []);
      if (hasLimit && !order.length) add('LIMIT_NO_ORDER', 'LIMIT/OFFSET/FETCH without ORDER BY keeps arbitrary rows');
      else if (hasLimit && !isTotalOrder(n, order, options)) {
        add('LIMIT_ORDER_NOT_TOTAL', 'LIMIT/OFFSET/FETCH with an ORDER BY that can tie keeps arbitrary rows among the ties');
      }
      if (t === 'select' && d.distinct_on) {
        const keys = d.distinct_on.expressions?.length ?? (Array.isArray(d.distinct_on) ? d.distinct_on.length : 1);
        if (!order.length) add('DISTINCT_ON_NO_ORDER', 'DISTINCT ON without ORDER BY keeps an arbitrary row per key');
        else if (order.length <= keys) add('DISTINCT_ON_PARTIAL_ORDER', 'DISTINCT ON ordered only by its own keys keeps an arbitrary row per key');
      }
    }
    if (t === 'window_function') {
      let spec = d.over ?? {};
      if (spec.window_name) {
        // merge field by field: an empty partition_by in the reference must not hide the base window's
        const base = named.get(identName(spec.window_name)!) ?? {};
        spec = {
          partition_by: spec.partition_by?.length ? spec.partition_by : base.partition_by,
          order_by: spec.order_by?.length ? spec.order_by : base.order_by,
          frame: spec.frame ?? base.frame,
        };
      }
      const inner = d.this ? fname(d.this) : '';
      if (ORDER_NEEDING_WINDOW.has(inner) && !spec.order_by?.length) add('WINDOW_NO_ORDER', `${inner}() OVER a window without ORDER BY depends on row order`);
      else if (ORDER_SENSITIVE_AGG.has(inner) && !spec.order_by?.length && !d.this?.[inner]?.order_by?.length) {
        add('WINDOW_NO_ORDER', `${inner}() OVER a window without ORDER BY depends on row order`);
      } else if (spec.order_by?.length && tieSensitive(inner, spec) && !windowOrderIsTotal(n, spec, owners.get(n), options)) {
        add('WINDOW_ORDER_NOT_TOTAL', `${inner}() OVER an ORDER BY that can tie numbers or picks tied rows arbitrarily`);
      }
    }
  }
  return { ok: issues.length === 0, issues };
}

/** An expression's identity for comparison: spans and comments dropped, unquoted names lower-cased. */
function fingerprint(n: Data): string {
  return JSON.stringify(n, (k, v: unknown) => {
    if (k === 'span' || k === 'trailing_comments' || k === 'pre_alias_comments') return undefined;
    if (v && typeof v === 'object' && 'quoted' in v && 'name' in v && (v as { quoted: unknown }).quoted === false) {
      return { name: String((v as { name: unknown }).name).toLowerCase() };
    }
    return v;
  });
}

interface Output {
  readonly expr: Node;
  readonly alias: string | undefined;
}

/** A query's output columns (the left-most branch of a set operation), or undefined when they include `*`. */
function outputsOf(n: Node): readonly Output[] | undefined {
  const t = typeOf(n);
  const d = dataOf(n) ?? {};
  if (t === 'subquery') return d.this ? outputsOf(d.this) : undefined;
  if (t !== 'select') return d.left ? outputsOf(d.left) : undefined;
  const out: Output[] = [];
  for (const e of d.expressions ?? []) {
    const et = typeOf(e);
    if (et === 'star' || (et === 'column' && typeOf(dataOf(e).name ?? {}) === 'star')) return undefined;
    if (et === 'alias') out.push({ expr: dataOf(e).this, alias: identName(dataOf(e).alias) });
    else out.push({ expr: e, alias: et === 'column' ? identName(dataOf(e).name) : undefined });
  }
  return out;
}

function sameExpr(a: Node, b: Node): boolean {
  if (typeOf(a) === 'column' && typeOf(b) === 'column') {
    const x = dataOf(a);
    const y = dataOf(b);
    if (identName(x.name) !== identName(y.name)) return false;
    // an unqualified name inside one SELECT is unambiguous, so it matches a qualified one
    return !x.table || !y.table || identName(x.table) === identName(y.table);
  }
  return fingerprint(a) === fingerprint(b);
}

/**
 * True when an ORDER BY cannot tie between distinguishable rows: it covers every GROUP BY key (one
 * row per group), every output column (tied rows are identical), or a declared unique key of the
 * query's only table.
 */
function isTotalOrder(n: Node, order: readonly Data[], options: DeterminismOptions): boolean {
  const outputs = outputsOf(n);
  const keys: Node[] = [];
  for (const o of order) {
    const e: Node = o?.this ?? o;
    if (typeOf(e) === 'literal' && dataOf(e).literal_type === 'number' && outputs) {
      const picked = outputs[Number(dataOf(e).value) - 1];
      if (picked) keys.push(picked.expr);
      continue;
    }
    keys.push(e);
    if (typeOf(e) === 'column' && !dataOf(e).table && outputs) {
      const named = outputs.find((x) => x.alias !== undefined && x.alias === identName(dataOf(e).name));
      if (named) keys.push(named.expr);
    }
  }
  const covered = (e: Node) => keys.some((k) => sameExpr(k, e));
  if (outputs && outputs.length > 0 && outputs.every((o) => covered(o.expr))) return true;
  if (typeOf(n) !== 'select') return false;
  const d = dataOf(n);
  const groups: Data[] = d.group_by?.expressions ?? [];
  if (groups.length > 0 && groups.every((g) => QUERY_TYPES.has(typeOf(g)) === false && covered(g))) return true;
  return uniqueKeyCovered(n, keys, options);
}

/** The MV admission verdict: `reason` is null when the SQL is deterministic. */
export interface DeterminismVerdict {
  readonly ok: boolean;
  readonly reason: string | null;
  readonly issues: readonly DeterminismIssue[];
  /** False when the SQL is not one parseable query (then no tier admits it). */
  readonly parsed: boolean;
}

/**
 * The determinism check for a view's SQL, failing closed (federation-fleet.md §3.1): SQL that cannot
 * be parsed, or is not a single query, is non-deterministic, with reason "view_sql cannot be parsed".
 * Otherwise `reason` is the first issue (`non-deterministic …: message at line L, column C`).
 */
export function checkViewDeterminism(sql: string, options: DeterminismOptions = {}): DeterminismVerdict {
  let report: DeterminismReport;
  try {
    report = checkDeterminism(sql, options);
  } catch (e) {
    const message = e instanceof ShoalError ? e.message : 'the parser failed';
    return { ok: false, reason: `view_sql cannot be parsed (${message})`, issues: [], parsed: false };
  }
  const first = report.issues[0];
  if (!first) return { ok: true, reason: null, issues: [], parsed: true };
  const at = first.position ? ` at line ${first.position.line}, column ${first.position.column}` : '';
  return { ok: false, reason: `non-deterministic (${first.code}): ${first.message}${at}`, issues: report.issues, parsed: true };
}

export type MvConsistencyTier = 'shared' | 'distributed';

/** Whether an MV may be registered, and why (law S4). */
export interface MvAdmission {
  readonly ok: boolean;
  readonly deterministic: boolean;
  readonly reason: string;
}

/**
 * Admission of a materialized view by tier (law S4). `shared` admits any parseable query (one copy,
 * so non-determinism cannot make instances disagree; the reason notes it). `distributed` is admitted
 * only for deterministic SQL: per-instance copies of anything else would never converge. An empty
 * view_sql (a join-pattern MV) is deterministic by construction.
 */
export function admitMaterializedView(consistency: MvConsistencyTier, viewSql: string | null | undefined, options: DeterminismOptions = {}): MvAdmission {
  if (consistency !== 'shared' && consistency !== 'distributed') {
    throw new ShoalError('MV_BAD_CONSISTENCY', `consistency "${String(consistency)}" is not shared or distributed`, {
      hint: "use consistency 'shared' (the default) or 'distributed'",
    });
  }
  const v = !viewSql || viewSql.trim() === '' ? { ok: true, reason: null, parsed: true } : checkViewDeterminism(viewSql, options);
  if (v.ok) return { ok: true, deterministic: true, reason: 'deterministic' };
  // fail closed: SQL that is not one parseable query is admitted by no tier
  if (!v.parsed) return { ok: false, deterministic: false, reason: v.reason ?? 'view_sql cannot be parsed' };
  if (consistency === 'shared') {
    return { ok: true, deterministic: false, reason: `admitted as shared (one snapshot for every instance), though ${v.reason}` };
  }
  return {
    ok: false,
    deterministic: false,
    reason: `a distributed MV must be deterministic, or its per-instance copies would never converge: ${v.reason}; use consistency 'shared'`,
  };
}

/** Functions whose value for a row depends on where it falls among rows that tie on the window's ORDER BY. */
const TIE_SENSITIVE_WINDOW = new Set(['row_number', 'n_tile', 'ntile', 'lag', 'lead', 'first_value', 'last_value', 'nth_value']);

function tieSensitive(fn: string, spec: Data): boolean {
  // rank/dense_rank and RANGE/GROUPS frames treat ties as peers; a ROWS frame splits them
  return TIE_SENSITIVE_WINDOW.has(fn) || ORDER_SENSITIVE_AGG.has(fn) || String(spec.frame?.kind ?? '').toLowerCase() === 'rows';
}

/** The nearest enclosing SELECT of every window function. */
function mapWindowOwners(node: Node, owner: Node | undefined, out: Map<Node, Node>): void {
  const t = typeOf(node);
  const here = t === 'select' ? node : owner;
  if (t === 'window_function' && here) out.set(node, here);
  for (const [c] of children(node)) mapWindowOwners(c, here, out);
}

function containsWindow(n: Node): boolean {
  for (const [x] of allNodes(n)) if (typeOf(x) === 'window_function') return true;
  return false;
}

/**
 * A tie-sensitive window is deterministic when rows that tie on its PARTITION BY and ORDER BY keys
 * are indistinguishable: the keys cover every column its function reads and every other output
 * column of the SELECT, or a declared unique key of the SELECT's only table.
 */
function windowOrderIsTotal(win: Node, spec: Data, select: Node | undefined, options: DeterminismOptions): boolean {
  const keys: Node[] = [...(spec.partition_by ?? []), ...(spec.order_by ?? []).map((o: Data) => o?.this ?? o)];
  const covered = (e: Node) => keys.some((k) => sameExpr(k, e));
  if (select && uniqueKeyCovered(select, keys, options)) return true;
  const outputs = select ? outputsOf(select) : undefined;
  if (!outputs) return false;
  const read: Node[] = [];
  for (const [x] of allNodes(dataOf(win).this ?? {})) if (typeOf(x) === 'column') read.push(x);
  return read.every(covered) && outputs.filter((o) => !containsWindow(o.expr)).every((o) => covered(o.expr));
}

function uniqueKeyCovered(select: Node, keys: readonly Node[], options: DeterminismOptions): boolean {
  const d = dataOf(select);
  const from: Data[] = d.from?.expressions ?? [];
  if (!options.uniqueKeys || from.length !== 1 || d.joins?.length || typeOf(from[0]) !== 'table') return false;
  const table = identName(dataOf(from[0]).name);
  const names = new Set(keys.filter((k) => typeOf(k) === 'column').map((k) => identName(dataOf(k).name)));
  return !!table && options.uniqueKeys(table).some((uk) => uk.length > 0 && uk.every((c) => names.has(c.toLowerCase())));
}
