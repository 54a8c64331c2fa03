/**
 * Guard failure reasons (tik-model.md §5.1) as data: the payloads lenses, explain and the inbox
 * read. `permanent` is set by explain (§7.1) on reasons that can never be discharged.
 */
import type { Instant, Keyword} from '../edn/value.js';
import { kw, type EdnValue } from '../edn/value.js';
import { emit, mapOf } from './edn-access.js';
import type { Write } from './reduce.js';

interface Base {
  /** Set by explain on a reason that provably can never be discharged. */
  readonly permanent?: true;
}

/** One child of an `:or`: the child guard form and its reasons. */
export interface Alternative {
  readonly guard: EdnValue;
  readonly reasons: readonly Reason[];
}

export type Reason = Base &
  (
    | { readonly kind: 'fact/missing'; readonly path: readonly EdnValue[]; readonly schema?: EdnValue; readonly expected?: EdnValue }
    | { readonly kind: 'fact/retracted'; readonly path: readonly EdnValue[]; readonly by: string; readonly note: EdnValue }
    | { readonly kind: 'fact/disputed'; readonly path: readonly EdnValue[]; readonly by: string; readonly note: EdnValue }
    | { readonly kind: 'fact/conflicted'; readonly path: readonly EdnValue[]; readonly claims: readonly Write[] }
    | {
        readonly kind: 'fact/invalid';
        readonly path: readonly EdnValue[];
        readonly value: EdnValue;
        readonly schema: EdnValue;
        readonly errors: readonly string[];
      }
    | { readonly kind: 'fact/mismatch'; readonly path: readonly EdnValue[]; readonly expected: EdnValue; readonly actual: EdnValue }
    | { readonly kind: 'schema/unsupported'; readonly path?: readonly EdnValue[]; readonly schema: EdnValue }
    | { readonly kind: 'schema/unsatisfied'; readonly schema: EdnValue; readonly errors: readonly string[] }
    | { readonly kind: 'artifact/missing'; readonly prefix: string }
    | { readonly kind: 'role/unsatisfied'; readonly role: Keyword; readonly path: readonly EdnValue[]; readonly by: string }
    | { readonly kind: 'role/same-person'; readonly paths: readonly (readonly EdnValue[])[]; readonly by: string }
    | { readonly kind: 'stage/not-reached'; readonly stage: Keyword }
    | { readonly kind: 'time/not-elapsed'; readonly since: EdnValue; readonly duration: string; readonly due: Instant | null }
    | { readonly kind: 'attestation/stale'; readonly claim: EdnValue; readonly within: string; readonly lastAt: Instant }
    | { readonly kind: 'attestation/missing'; readonly claim: EdnValue; readonly within: string }
    | { readonly kind: 'alternatives'; readonly options: readonly Alternative[] }
    | { readonly kind: 'must-not-hold'; readonly guard: EdnValue }
    | { readonly kind: 'guard/malformed'; readonly guard: EdnValue; readonly message: string }
  );

export type ReasonKind = Reason['kind'];

const writeToEdn = (w: Write): EdnValue =>
  mapOf([
    [kw('kind'), kw(w.kind)],
    ...(w.kind === 'assert' ? [[kw('value'), w.value ?? null] as const] : []),
    [kw('by'), w.by],
    [kw('at'), w.at],
    [kw('event'), w.event],
  ]);

/**
 * A reason as an EDN map, upstream-shaped: `{:reason :fact/missing :path [:category] …}`
 * (plus `:permanent? true` when set). Used for `--edn`/JSON renderings and distinctness.
 */
export function reasonToEdn(r: Reason): EdnValue {
  const e: [EdnValue, EdnValue][] = [[kw('reason'), kw(r.kind)]];
  const put = (k: string, v: EdnValue | undefined): void => {
    if (v !== undefined) e.push([kw(k), v]);
  };
  const vec = (p: readonly EdnValue[]): EdnValue => Object.freeze([...p]);
  switch (r.kind) {
    case 'fact/missing':
      put('path', vec(r.path));
      if ('schema' in r) put('schema', r.schema ?? null);
      if ('expected' in r) put('expected', r.expected ?? null);
      break;
    case 'fact/retracted':
    case 'fact/disputed':
      put('path', vec(r.path));
      put('by', r.by);
      put('note', r.note);
      break;
    case 'fact/conflicted':
      put('path', vec(r.path));
      put('claims', Object.freeze(r.claims.map(writeToEdn)));
      break;
    case 'fact/invalid':
      put('path', vec(r.path));
      put('value', r.value);
      put('schema', r.schema);
      put('errors', Object.freeze([...r.errors]));
      break;
    case 'fact/mismatch':
      put('path', vec(r.path));
      put('expected', r.expected);
      put('actual', r.actual);
      break;
    case 'schema/unsupported':
      if (r.path) put('path', vec(r.path));
      put('schema', r.schema);
      break;
    case 'schema/unsatisfied':
      put('schema', r.schema);
      put('errors', Object.freeze([...r.errors]));
      break;
    case 'artifact/missing':
      put('prefix', r.prefix);
      break;
    case 'role/unsatisfied':
      put('role', r.role);
      put('path', vec(r.path));
      put('by', r.by);
      break;
    case 'role/same-person':
      put('paths', Object.freeze(r.paths.map(vec)));
      put('by', r.by);
      break;
    case 'stage/not-reached':
      put('stage', r.stage);
      break;
    case 'time/not-elapsed':
      put('since', r.since);
      put('duration', r.duration);
      put('due', r.due);
      break;
    case 'attestation/stale':
      put('claim', r.claim);
      put('within', r.within);
      put('last-at', r.lastAt);
      break;
    case 'attestation/missing':
      put('claim', r.claim);
      put('within', r.within);
      break;
    case 'alternatives':
      put('options', Object.freeze(r.options.map((o) => Object.freeze([o.guard, Object.freeze(o.reasons.map(reasonToEdn))]))));
      break;
    case 'must-not-hold':
      put('guard', r.guard);
      break;
    case 'guard/malformed':
      put('guard', r.guard);
      put('message', r.message);
      break;
  }
  if (r.permanent) put('permanent?', true);
  return mapOf(e);
}

/** The identity of a reason (canonical text of `reasonToEdn`), for "distinct reasons". */
export function reasonKey(r: Reason): string {
  return emit(reasonToEdn(r));
}

/** Explain's actionability rank (§7.1); `alternatives` takes the minimum over its options. */
export function actionability(r: Reason): number {
  switch (r.kind) {
    case 'fact/missing':
    case 'fact/mismatch':
    case 'fact/invalid':
      return 0;
    case 'fact/retracted':
    case 'fact/disputed':
    case 'fact/conflicted':
      return 1;
    case 'artifact/missing':
      return 2;
    case 'role/unsatisfied':
    case 'role/same-person':
      return 3;
    case 'attestation/stale':
    case 'attestation/missing':
      return 4;
    case 'stage/not-reached':
      return 5;
    case 'time/not-elapsed':
      return 6;
    case 'alternatives': {
      let m = 9;
      for (const o of r.options) for (const c of o.reasons) m = Math.min(m, actionability(c));
      return m;
    }
    default:
      return 9;
  }
}

/** The fact path a reason is about, if any (`role/same-person`: the first path). */
export function reasonPath(r: Reason): readonly EdnValue[] | undefined {
  if ('path' in r && r.path) return r.path;
  if (r.kind === 'role/same-person') return r.paths[0];
  return undefined;
}
