/**
 * Guard evaluation (tik-model.md §5.1). A guard form compiles once (cached by identity) into a
 * node; evaluation reads facts only through fact-status and returns `{satisfied, reasons}`.
 * An unknown operator throws `guard/unknown-operator`; any other defect in a guard form yields a
 * `guard/malformed` reason.
 */
import { TikError } from '../errors.js';
import { Instant, Keyword, type EdnValue } from '../edn/value.js';
import { ednEquals, emit, keywordPath, mapOf, pathKey } from './edn-access.js';
import { checkFactSchema, checkFactMapSchema, durationMillisCeil, durationMillisFloor } from './checks.js';
import type { ProcessDef, Roles } from './process.js';
import { factStatusByKey, type FactStatus, type TicketState } from './reduce.js';
import type { Reason } from './reason.js';

/** Everything a guard may read. `reached` is the sweep-start snapshot (stage keyword texts). */
export interface GuardContext {
  readonly state: TicketState;
  readonly def: ProcessDef;
  readonly now: Instant;
  readonly reached: ReadonlySet<string>;
  readonly roles: Roles;
  /** Per-fixpoint fact-status memo (path key → status); optional. */
  readonly memo?: Map<string, FactStatus>;
}

export interface GuardResult {
  readonly satisfied: boolean;
  readonly reasons: readonly Reason[];
}

/** Operators of guard vocabulary 1 and the two vocabulary-2 additions (§4.5). */
export const VOCAB_1: readonly string[] = Object.freeze([
  ':fact', ':fact=', ':artifact', ':signed-by', ':stage-reached', ':elapsed-since', ':and', ':or', ':not', ':malli',
]);
export const VOCAB_2: readonly string[] = Object.freeze([...VOCAB_1, ':attested-within', ':different-person']);

type Node = (ctx: GuardContext) => GuardResult;

const OK: GuardResult = Object.freeze({ satisfied: true, reasons: Object.freeze([]) });
const fail = (...reasons: Reason[]): GuardResult => ({ satisfied: false, reasons });

const cache = new WeakMap<object, Node>();

function statusOf(ctx: GuardContext, key: string): FactStatus {
  if (!ctx.memo) return factStatusByKey(ctx.state, key);
  let s = ctx.memo.get(key);
  if (!s) {
    s = factStatusByKey(ctx.state, key);
    ctx.memo.set(key, s);
  }
  return s;
}

class Malformed extends Error {}

function pathArg(form: readonly EdnValue[], i: number): { path: readonly Keyword[]; key: string } {
  const v = form[i];
  const path = Array.isArray(v) ? keywordPath(v) : undefined;
  if (!path || path.length === 0) throw new Malformed(`argument ${i} must be a non-empty vector of keywords, got ${v === undefined ? 'nothing' : emit(v)}`);
  return { path, key: pathKey(path) };
}

function arity(form: readonly EdnValue[], n: number): void {
  if (form.length !== n) throw new Malformed(`${emit(form[0] ?? null)} takes ${n - 1} argument(s), got ${form.length - 1}`);
}

/** Reasons `[:fact p]` gives for a non-present status (shared by `:fact` and `:signed-by`). */
function factReasons(ctx: GuardContext, path: readonly Keyword[], key: string): Reason[] {
  const s = statusOf(ctx, key);
  const decl = ctx.def.facts.get(key);
  switch (s.status) {
    case 'absent':
      return [{ kind: 'fact/missing', path, schema: decl ? decl.schema : null }];
    case 'retracted':
      return [{ kind: 'fact/retracted', path, by: s.by, note: s.note }];
    case 'disputed':
      return [{ kind: 'fact/disputed', path, by: s.by, note: s.note }];
    case 'conflicted':
      return [{ kind: 'fact/conflicted', path, claims: s.claims }];
    case 'present': {
      if (!decl) return [];
      const check = validated(ctx.state, key, decl.schema, s.value);
      if (check === 'unsupported') return [{ kind: 'schema/unsupported', path, schema: decl.schema }];
      if (check.length > 0) return [{ kind: 'fact/invalid', path, value: s.value, schema: decl.schema, errors: check }];
      return [];
    }
  }
}

// Validity depends only on (schema, value): cache it per path in the state's disposable cache,
// keyed by the fact's current entry object (replaced, never mutated, when the fact changes).
interface Validity {
  readonly current: object;
  readonly schema: EdnValue;
  readonly result: readonly string[] | 'unsupported';
}
function validated(state: TicketState, key: string, schema: EdnValue, value: EdnValue): readonly string[] | 'unsupported' {
  const current = state.facts.get(key)?.current;
  if (!current) return checkFactSchema(schema, value);
  const cacheKey = `validity ${key}`;
  const hit = state.cache.get(cacheKey) as Validity | undefined;
  if (hit && hit.current === current && hit.schema === schema) return hit.result;
  const result = checkFactSchema(schema, value);
  state.cache.set(cacheKey, { current, schema, result });
  return result;
}

function compile(form: EdnValue): Node {
  if (!Array.isArray(form) || form.length === 0 || !(form[0] instanceof Keyword)) {
    const f = form;
    return () => fail({ kind: 'guard/malformed', guard: f, message: 'a guard is a vector [:operator & args]' });
  }
  const g = form as readonly EdnValue[];
  const op = (g[0] as Keyword).toString();
  try {
    const node = compileOp(op, g);
    // Any failure while evaluating (e.g. a declared schema that is not a schema) is a
    // :guard/malformed reason; only an unknown operator propagates.
    return (ctx) => {
      try {
        return node(ctx);
      } catch (e) {
        if (e instanceof TikError && e.code !== 'guard/unknown-operator') {
          return fail({ kind: 'guard/malformed', guard: g, message: e.message });
        }
        throw e;
      }
    };
  } catch (e) {
    if (e instanceof Malformed) {
      const message = e.message;
      return () => fail({ kind: 'guard/malformed', guard: g, message });
    }
    throw e;
  }
}

function compileOp(op: string, g: readonly EdnValue[]): Node {
  switch (op) {
    case ':fact': {
      arity(g, 2);
      const { path, key } = pathArg(g, 1);
      return (ctx) => {
        const r = factReasons(ctx, path, key);
        return r.length === 0 ? OK : fail(...r);
      };
    }
    case ':fact=': {
      arity(g, 3);
      const { path, key } = pathArg(g, 1);
      const expected = g[2] as EdnValue;
      return (ctx) => {
        const s = statusOf(ctx, key);
        if (s.status !== 'present') return fail({ kind: 'fact/missing', path, expected });
        if (!ednEquals(s.value, expected)) return fail({ kind: 'fact/mismatch', path, expected, actual: s.value });
        return OK;
      };
    }
    case ':artifact': {
      arity(g, 2);
      const prefix = g[1];
      if (typeof prefix !== 'string') throw new Malformed(`:artifact takes a string prefix, got ${emit(prefix ?? null)}`);
      return (ctx) => {
        for (const p of ctx.state.artifacts.keys()) if (p.startsWith(prefix)) return OK;
        return fail({ kind: 'artifact/missing', prefix });
      };
    }
    case ':signed-by': {
      arity(g, 3);
      const role = g[1];
      if (!(role instanceof Keyword)) throw new Malformed(`:signed-by takes a role keyword, got ${emit(role ?? null)}`);
      const { path, key } = pathArg(g, 2);
      const roleKey = role.toString();
      return (ctx) => {
        const r = factReasons(ctx, path, key);
        if (r.length > 0) return fail(...r);
        const s = statusOf(ctx, key);
        const by = s.status === 'present' ? s.by : '';
        if ((ctx.roles.get(roleKey) ?? []).includes(by)) return OK;
        return fail({ kind: 'role/unsatisfied', role, path, by });
      };
    }
    case ':stage-reached': {
      arity(g, 2);
      const stage = g[1];
      if (!(stage instanceof Keyword)) throw new Malformed(`:stage-reached takes a stage keyword, got ${emit(stage ?? null)}`);
      const sk = stage.toString();
      return (ctx) => (ctx.reached.has(sk) ? OK : fail({ kind: 'stage/not-reached', stage }));
    }
    case ':elapsed-since': {
      arity(g, 3);
      const since = g[1] as EdnValue;
      const text = g[2];
      if (!(since instanceof Keyword) || since.toString() !== ':ticket/create') {
        throw new Malformed(`:elapsed-since only measures from :ticket/create, got ${emit(since)}`);
      }
      if (typeof text !== 'string') throw new Malformed(`:elapsed-since takes an ISO-8601 duration string, got ${emit(text ?? null)}`);
      const ms = durationOrMalformed(text, durationMillisCeil);
      return (ctx) => {
        const created = ctx.state.createdAt;
        if (!created) return fail({ kind: 'time/not-elapsed', since, duration: text, due: null });
        const due = created.ms + ms;
        if (ctx.now.ms >= due) return OK;
        return fail({ kind: 'time/not-elapsed', since, duration: text, due: new Instant(due) });
      };
    }
    case ':attested-within': {
      arity(g, 3);
      const claim = g[1] as EdnValue;
      const text = g[2];
      if (typeof text !== 'string') throw new Malformed(`:attested-within takes an ISO-8601 duration string, got ${emit(text ?? null)}`);
      const ms = durationOrMalformed(text, durationMillisFloor);
      const ck = emit(claim);
      return (ctx) => {
        const last = ctx.state.lastAttested.get(ck);
        if (!last) return fail({ kind: 'attestation/missing', claim, within: text });
        if (last.ms >= ctx.now.ms - ms) return OK;
        return fail({ kind: 'attestation/stale', claim, within: text, lastAt: last });
      };
    }
    case ':different-person': {
      arity(g, 3);
      const a = pathArg(g, 1);
      const b = pathArg(g, 2);
      return (ctx) => {
        const sa = statusOf(ctx, a.key);
        const sb = statusOf(ctx, b.key);
        const reasons: Reason[] = [];
        if (sa.status !== 'present') reasons.push({ kind: 'fact/missing', path: a.path });
        if (sb.status !== 'present') reasons.push({ kind: 'fact/missing', path: b.path });
        if (reasons.length > 0) return fail(...reasons);
        if (sa.status === 'present' && sb.status === 'present' && sa.by === sb.by) {
          return fail({ kind: 'role/same-person', paths: [a.path, b.path], by: sa.by });
        }
        return OK;
      };
    }
    case ':malli': {
      arity(g, 2);
      const schema = g[1] as EdnValue;
      return (ctx) => {
        const entries: [EdnValue, EdnValue][] = [];
        for (const [key, entry] of ctx.state.facts) {
          const s = statusOf(ctx, key);
          if (s.status === 'present') entries.push([Object.freeze([...entry.path]), s.value]);
        }
        const check = checkFactMapSchema(schema, mapOf(entries));
        if (check === 'unsupported') return fail({ kind: 'schema/unsupported', schema });
        return check.length === 0 ? OK : fail({ kind: 'schema/unsatisfied', schema, errors: check });
      };
    }
    case ':and': {
      const kids = g.slice(1).map(compileGuard);
      return (ctx) => {
        const reasons: Reason[] = [];
        for (const k of kids) {
          const r = k(ctx);
          if (!r.satisfied) reasons.push(...r.reasons);
        }
        return reasons.length === 0 ? OK : fail(...reasons);
      };
    }
    case ':or': {
      const forms = g.slice(1);
      const kids = forms.map(compileGuard);
      return (ctx) => {
        const options = [];
        for (let i = 0; i < kids.length; i++) {
          const r = (kids[i] as Node)(ctx);
          if (r.satisfied) return OK;
          options.push({ guard: forms[i] as EdnValue, reasons: r.reasons });
        }
        return fail({ kind: 'alternatives', options });
      };
    }
    case ':not': {
      arity(g, 2);
      const inner = g[1] as EdnValue;
      const kid = compileGuard(inner);
      return (ctx) => (kid(ctx).satisfied ? fail({ kind: 'must-not-hold', guard: inner }) : OK);
    }
    default:
      return () => {
        throw new TikError('guard/unknown-operator', `unknown guard operator ${op} in ${emit(g)}`, {
          where: emit(g),
          hint: `known operators: ${VOCAB_2.join(' ')}`,
        });
      };
  }
}

function durationOrMalformed(text: string, toMs: (text: string) => number): number {
  try {
    return toMs(text);
  } catch (e) {
    throw new Malformed(`invalid duration ${JSON.stringify(text)}: ${(e as Error).message}`);
  }
}

/** The compiled form of a guard (cached by the identity of the frozen form). */
export function compileGuard(form: EdnValue): Node {
  if (typeof form === 'object' && form !== null) {
    const hit = cache.get(form);
    if (hit) return hit;
    const n = compile(form);
    cache.set(form, n);
    return n;
  }
  return compile(form);
}

/** Evaluates one guard form. Throws `guard/unknown-operator` for an unknown operator. */
export function evaluateGuard(form: EdnValue, ctx: GuardContext): GuardResult {
  return compileGuard(form)(ctx);
}

/**
 * Whether every guard of a stage holds. Evaluates all of them (so an unknown operator throws
 * wherever it sits) without collecting results: the derivation's hot path.
 */
export function guardsHold(guards: readonly EdnValue[], ctx: GuardContext): boolean {
  let ok = true;
  for (const g of guards) if (!compileGuard(g)(ctx).satisfied) ok = false;
  return ok;
}

/** Evaluates every guard of a stage (an implicit AND; every reason is reported). */
export function evaluateGuards(
  guards: readonly EdnValue[],
  ctx: GuardContext,
): { satisfied: boolean; results: readonly { guard: EdnValue; result: GuardResult }[] } {
  const results = guards.map((guard) => ({ guard, result: evaluateGuard(guard, ctx) }));
  return { satisfied: results.every((r) => r.result.satisfied), results };
}

