/**
 * Whether a governed query's result may be cached, and under which key.
 *
 * The key is a SHA-256 over the deployment id, the connection fingerprints of the catalog's
 * sources (./connection-fingerprint.ts), the catalog epoch, the route, the SQL that runs (governed: row
 * filters and masks inlined, session variables and `now()` already substituted as literals; MV
 * reads bound to their snapshot), the bind parameters (none today), the role, the session
 * variables the query and its row filters read, and the resolved MV snapshots. Two requests share
 * an entry only when every input of the governed answer is the same.
 *
 * Fail closed: a query is uncacheable when an input of its answer is not in the key — it (or a
 * row filter, or a view it reads) calls a time, random, session or external function (the
 * determinism check of src/shoal/sql/determinism.ts, where only `current_setting` is captured),
 * samples rows, reads a session variable through a non-literal name, a row filter is empty or
 * cannot be analysed, a view body reads a session variable, the SQL that runs still contains
 * `current_setting`, or the TTL resolves to 0.
 */
import { createHash } from 'node:crypto';
import { type CatalogModel, qualifiedName } from '../config/model.js';
import { type Node, allNodes, dataOf, typeOf } from '../sql/ast-node.js';
import type { GovernanceCatalog } from '../sql/catalog.js';
import { checkDeterminism } from '../sql/determinism.js';
import { parseQuery } from '../sql/parse.js';
import { type SessionVars, substituteSessionVars } from '../sql/session-vars.js';
import { parseTemplate } from '../sql/template.js';
import { catalogConnectionsFingerprint } from './connection-fingerprint.js';
import { resultTtlSeconds } from './result-ttl.js';

/** What the instance knows about a planned query when it asks the cache. */
export interface ResultKeyInput {
  /** The registry epoch the catalog was built at (a registry change invalidates every key). */
  readonly epoch: number;
  /** `engine` or `direct:<source>`. */
  readonly route: string;
  /** The SQL that will run: governed, generated for the route, MVs bound. */
  readonly sql: string;
  /** The request's SQL as the client sent it. */
  readonly userSql: string;
  readonly role: string;
  readonly vars: SessionVars;
  /** Catalog tables read (`<domain>.<table>`, as the plan lists them). */
  readonly tables: readonly string[];
  /** The MV snapshots the query was bound to (the `x-shoal-mv` note), if any. */
  readonly mv?: string;
  /**
   * `requestSqlVerdict(userSql)`, when the planner thread computed it already: analysing the
   * user's text parses it again, which at the SQL limits costs as much as planning it.
   */
  readonly userSqlVerdict?: TextVerdict;
}

export interface ResultKeyContext {
  /** The deployment the registry belongs to (src/shoal/registry/deployment-id.ts): two never share an entry. */
  readonly deployment: string;
  readonly model: CatalogModel;
  readonly governance: GovernanceCatalog;
  /** `cache.default_ttl`, seconds. */
  readonly defaultTtl: number;
}

export type Cacheability =
  | { readonly cacheable: true; readonly key: string; readonly ttlSeconds: number; readonly tables: readonly string[] }
  | { readonly cacheable: false; readonly reason: string };

/** What one SQL text reads that the key must capture: the session variables, or why it cannot be cached. */
export type TextVerdict = { readonly ok: true; readonly vars: readonly string[] } | { readonly ok: false; readonly reason: string };

const UNCACHEABLE_ISSUES = new Set(['VOLATILE', 'EXTERNAL_CALL', 'SAMPLE', 'ARBITRARY']);
const verdicts = new Map<string, TextVerdict>();

/** current_setting is captured (its variable is part of the key); every other volatile call is not. */
const isCapturedSessionRead = (code: string, message: string): boolean => code === 'VOLATILE' && message.startsWith('current_setting()');

function analyse(text: string, allowSessionVars: boolean): TextVerdict {
  const memo = `${allowSessionVars ? 'q' : 'v'}:${text}`;
  const known = verdicts.get(memo);
  if (known) return known;
  const verdict = analyseUncached(text, allowSessionVars);
  if (verdicts.size > 5000) verdicts.clear();
  verdicts.set(memo, verdict);
  return verdict;
}

function analyseUncached(text: string, allowSessionVars: boolean): TextVerdict {
  let stmt: Node;
  try {
    const report = checkDeterminism(text);
    for (const issue of report.issues) {
      if (!UNCACHEABLE_ISSUES.has(issue.code)) continue; // row order and LIMIT ties: any live answer is as valid as the cached one
      if (allowSessionVars && isCapturedSessionRead(issue.code, issue.message)) continue;
      return { ok: false, reason: issue.message };
    }
    stmt = parseQuery(text);
  } catch {
    return { ok: false, reason: 'the SQL cannot be analysed' };
  }
  const vars = new Set<string>();
  for (const [n] of allNodes(stmt)) {
    if (typeOf(n) !== 'function' || String(dataOf(n).name).toLowerCase() !== 'current_setting') continue;
    const arg: Node | undefined = (dataOf(n).args ?? [])[0];
    if (!arg || typeOf(arg) !== 'literal' || dataOf(arg).literal_type !== 'string') return { ok: false, reason: 'a session variable is read through a non-literal name' };
    vars.add(String(dataOf(arg).value).toLowerCase());
  }
  return { ok: true, vars: [...vars].sort() };
}

/** What a request's own SQL text reads that a result key must capture (memoized per text). */
export function requestSqlVerdict(sql: string): TextVerdict {
  return analyse(sql, true);
}

/**
 * The value a session variable read resolves to, by the governance pass's own rule (it is run on
 * `current_setting('<key>', true)`): a string, or null when unset. Undefined when it cannot be
 * captured (the read would not plan), which makes the query uncacheable.
 */
function captured(vars: SessionVars, key: string): { readonly value: string | null } | undefined {
  const stmt = parseTemplate(`SELECT current_setting('${key.replace(/'/g, "''")}', true)`)?.[0];
  if (!stmt) return undefined;
  try {
    substituteSessionVars(stmt, vars, 'result cache key');
  } catch {
    return undefined;
  }
  const out: Node | undefined = dataOf(stmt).expressions?.[0];
  if (out && typeOf(out) === 'null') return { value: null };
  if (out && typeOf(out) === 'literal' && dataOf(out).literal_type === 'string') return { value: String(dataOf(out).value) };
  return undefined;
}

/** The cache key of a planned query, or why it may not be cached. Pure: same input, same answer. */
export function resultCacheability(input: ResultKeyInput, ctx: ResultKeyContext): Cacheability {
  const reads = new Set<string>();
  const texts: { text: string; sessionVars: boolean }[] = [{ text: input.userSql, sessionVars: true }];
  for (const key of input.tables) {
    for (const f of ctx.governance.rowFilters(input.role, key)) {
      if (!f.trim()) return { cacheable: false, reason: `a row filter of ${key} is empty` };
      texts.push({ text: `SELECT 1 WHERE (${f})`, sessionVars: true });
    }
    const t = ctx.model.tables.find((x) => qualifiedName(x).toLowerCase() === key.toLowerCase());
    // a view body runs inside the engine: nothing it reads is substituted by the gateway
    if (t?.view_sql) texts.push({ text: t.view_sql, sessionVars: false });
  }
  for (const [i, { text, sessionVars }] of texts.entries()) {
    const v = i === 0 && input.userSqlVerdict ? input.userSqlVerdict : analyse(text, sessionVars);
    if (!v.ok) return { cacheable: false, reason: v.reason };
    if (!sessionVars && v.vars.length > 0) return { cacheable: false, reason: 'a view reads a session variable' };
    for (const k of v.vars) reads.add(k);
  }
  if (/current_setting/i.test(input.sql)) return { cacheable: false, reason: 'the SQL that runs reads a session variable' };
  const values: [string, string | null][] = [];
  for (const k of [...reads].sort()) {
    const v = captured(input.vars, k);
    if (!v) return { cacheable: false, reason: `session variable '${k}' cannot be captured` };
    values.push([k, v.value]);
  }
  const ttlSeconds = resultTtlSeconds(ctx.model, input.tables, ctx.defaultTtl);
  if (ttlSeconds <= 0) return { cacheable: false, reason: 'the TTL is 0' };
  const material = JSON.stringify({
    v: 2,
    // epochs of two registries collide; the deployment and where the sources point do not
    deployment: ctx.deployment,
    connections: catalogConnectionsFingerprint(ctx.model),
    epoch: input.epoch,
    route: input.route,
    sql: input.sql,
    params: [],
    role: input.role,
    vars: values,
    mv: input.mv ?? null,
  });
  return { cacheable: true, key: createHash('sha256').update(material).digest('hex'), ttlSeconds, tables: [...input.tables].map((k) => k.toLowerCase()).sort() };
}
