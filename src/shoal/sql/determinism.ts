import { ShoalError } from '../errors.js';
import { type Data, type Node, QUERY_TYPES, allNodes, dataOf, identName, positionOf, typeOf } from './ast-node.js';
import { parseQuery } from './parse.js';

/** Why a query's answer can differ between two runs over the same data (study §7). */
export interface DeterminismIssue {
  readonly code: 'VOLATILE' | 'AGG_ORDER' | 'ARBITRARY' | 'SAMPLE' | 'LIMIT_NO_ORDER' | 'DISTINCT_ON_NO_ORDER' | 'DISTINCT_ON_PARTIAL_ORDER' | 'WINDOW_NO_ORDER';
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
  'nextval', 'currval', 'inet_client_addr', 'current_setting']);
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

/**
 * Whether a query is deterministic: the same data gives the same answer on every run and every
 * instance (the admission rule for `distributed` materialized views, law S4). Flags volatile
 * functions (time, randomness, session), order-sensitive aggregates without ORDER BY, arbitrary
 * picks, sampling, LIMIT/OFFSET/FETCH without ORDER BY, DISTINCT ON without a tie-breaking
 * ORDER BY, and order-dependent window functions without ORDER BY (named windows resolved).
 * Throws ShoalError only when the text is not a single parseable query.
 */
export function checkDeterminism(sql: string): DeterminismReport {
  const stmt = parseQuery(sql);
  if (!QUERY_TYPES.has(typeOf(stmt))) {
    throw new ShoalError('SQL_NOT_SELECT', 'a view is a SELECT query', { hint: 'write the view as a SELECT' });
  }
  const issues: DeterminismIssue[] = [];
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
    if (ORDER_SENSITIVE_AGG.has(f) && !d.order_by?.length) add('AGG_ORDER', `${f}() without ORDER BY inside the call depends on row order`);
    if (ARBITRARY.has(f)) add('ARBITRARY', `${f}() picks an arbitrary row`);
    if ((t === 'table' && d.table_sample) || (t === 'select' && d.sample)) add('SAMPLE', 'TABLESAMPLE reads a random subset');
    if (QUERY_TYPES.has(t) || t === 'subquery') {
      const hasLimit = d.limit || d.offset || d.fetch || d.top;
      const order = d.order_by?.expressions ?? (Array.isArray(d.order_by) ? d.order_by : []);
      if (hasLimit && !order.length) add('LIMIT_NO_ORDER', 'LIMIT/OFFSET/FETCH without ORDER BY keeps arbitrary rows');
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
        };
      }
      const inner = d.this ? fname(d.this) : '';
      if (ORDER_NEEDING_WINDOW.has(inner) && !spec.order_by?.length) add('WINDOW_NO_ORDER', `${inner}() OVER a window without ORDER BY depends on row order`);
      else if (ORDER_SENSITIVE_AGG.has(inner) && !spec.order_by?.length && !d.this?.[inner]?.order_by?.length) {
        add('WINDOW_NO_ORDER', `${inner}() OVER a window without ORDER BY depends on row order`);
      }
    }
  }
  return { ok: issues.length === 0, issues };
}
