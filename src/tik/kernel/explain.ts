/**
 * explain (tik-model.md §7.1): for each frontier stage (unreached, every `:after` reached) with a
 * failing guard, what holds, what is missing (distinct reasons, ordered), what it blocks, and
 * whether it is impossible. `forActor` keeps only the reasons that actor can act on.
 */
import type { Instant} from '../edn/value.js';
import { Keyword, type EdnValue } from '../edn/value.js';
import { pathKey } from './edn-access.js';
import type { TikEvent } from './event.js';
import { evaluateGuards, type GuardContext, type GuardResult } from './guard.js';
import type { ProcessDef, Roles } from './process.js';
import { actionability, reasonKey, reasonPath, type Reason } from './reason.js';
import type { FactStatus } from './reduce.js';
import { currentStages, derive, downstream, sortedStages, type Evolution } from './stage.js';

/** One frontier stage that cannot be reached yet. */
export interface ExplainBlock {
  /** Stage keyword text, e.g. `':triaged'`. */
  readonly stage: string;
  readonly hint: string | undefined;
  /** Guard forms of the stage that hold. */
  readonly satisfied: readonly EdnValue[];
  /** Distinct reasons of the failing guards: non-permanent first, then by actionability. */
  readonly missing: readonly Reason[];
  /** Downstream stages (sorted keyword texts). */
  readonly blocks: readonly string[];
  /** True when a reason is permanent: the stage can never be reached. */
  readonly impossible: boolean;
  /** With `forActor`: how many reasons were filtered out of this block. */
  readonly hidden: number;
}

export interface ExplainResult {
  readonly reached: readonly string[];
  readonly current: readonly string[];
  /** Frontier blocks in definition order (with `forActor`, blocks left with no reason are dropped). */
  readonly blocks: readonly ExplainBlock[];
  /** With `forActor`: the total number of reasons filtered out. */
  readonly hidden: number;
  /** Stages that can never be reached (sorted), the least fixpoint of §7.1. */
  readonly dead: readonly string[];
  /** The derivation the answer came from. */
  readonly evolution: Evolution & { readonly reached: ReadonlySet<string> };
}

export interface ExplainOptions {
  readonly forActor?: string;
}

function isRoleEmpty(roles: Roles, role: Keyword): boolean {
  return (roles.get(role.toString()) ?? []).length === 0;
}

/** Marks permanent reasons (§7.1), recursively through `:alternatives`. */
function markPermanent(r: Reason, def: ProcessDef, reached: ReadonlySet<string>, roles: Roles, dead: ReadonlySet<string>): Reason {
  switch (r.kind) {
    case 'role/unsatisfied':
      return isRoleEmpty(roles, r.role) ? { ...r, permanent: true } : r;
    case 'must-not-hold': {
      const g = r.guard;
      if (Array.isArray(g) && g.length === 2 && g[0] instanceof Keyword && g[0].toString() === ':stage-reached' && g[1] instanceof Keyword) {
        const s = def.stageByKey.get(g[1].toString());
        if (s?.sticky && reached.has(s.key)) return { ...r, permanent: true };
      }
      return r;
    }
    case 'stage/not-reached':
      return dead.has(r.stage.toString()) ? { ...r, permanent: true } : r;
    case 'alternatives': {
      const options = r.options.map((o) => ({ guard: o.guard, reasons: o.reasons.map((c) => markPermanent(c, def, reached, roles, dead)) }));
      const all = options.length > 0 && options.every((o) => o.reasons.some((c) => c.permanent));
      return all ? { kind: 'alternatives', options, permanent: true } : { kind: 'alternatives', options };
    }
    default:
      return r;
  }
}

/** Whether `actor` can act on a reason (§7.1 for-actor). */
export function actorCanAct(r: Reason, actor: string, roles: Roles): boolean {
  if (r.permanent) return false;
  switch (r.kind) {
    case 'role/unsatisfied':
      return (roles.get(r.role.toString()) ?? []).includes(actor);
    case 'role/same-person':
      return actor !== r.by;
    case 'time/not-elapsed':
    case 'stage/not-reached':
      return false;
    case 'alternatives':
      return r.options.some((o) => o.reasons.some((c) => actorCanAct(c, actor, roles)));
    default:
      return true;
  }
}

const compareMissing = (a: Reason, b: Reason): number => (a.permanent ? 1 : 0) - (b.permanent ? 1 : 0) || actionability(a) - actionability(b);

/** explain over a ticket's events at `now`. */
export function explain(def: ProcessDef, events: readonly TikEvent[], now: Instant, roles: Roles, opts: ExplainOptions = {}): ExplainResult {
  const evolution = derive(def, events, now, roles);
  return explainDerived(def, evolution, now, roles, opts);
}

/** explain over an existing derivation (lets `status` and `inbox` derive once). */
export function explainDerived(
  def: ProcessDef,
  evolution: Evolution & { readonly reached: ReadonlySet<string> },
  now: Instant,
  roles: Roles,
  opts: ExplainOptions = {},
): ExplainResult {
  const reached = evolution.reached;
  const ctx: GuardContext = { state: evolution.state, def, now, reached, roles, memo: new Map<string, FactStatus>() };
  const unreached = def.stages.filter((s) => !reached.has(s.key));
  const evaluated = new Map<string, readonly { guard: EdnValue; result: GuardResult }[]>();
  for (const s of unreached) evaluated.set(s.key, evaluateGuards(s.guards, ctx).results);

  // Dead stages: least fixpoint — a dead prerequisite, or a guard with a permanent reason.
  const dead = new Set<string>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const s of unreached) {
      if (dead.has(s.key)) continue;
      const deadBefore = s.afterKeys.some((a) => dead.has(a));
      const permanent =
        deadBefore ||
        (evaluated.get(s.key) ?? []).some((g) => g.result.reasons.some((r) => markPermanent(r, def, reached, roles, dead).permanent));
      if (permanent) {
        dead.add(s.key);
        changed = true;
      }
    }
  }

  let hiddenTotal = 0;
  const blocks: ExplainBlock[] = [];
  for (const s of unreached) {
    if (!s.afterKeys.every((a) => reached.has(a))) continue;
    const results = evaluated.get(s.key) ?? [];
    const failing = results.filter((g) => !g.result.satisfied);
    if (failing.length === 0) continue;
    const seen = new Set<string>();
    let missing: Reason[] = [];
    for (const g of failing) {
      for (const raw of g.result.reasons) {
        const r = markPermanent(raw, def, reached, roles, dead);
        const key = reasonKey(r);
        if (seen.has(key)) continue;
        seen.add(key);
        missing.push(r);
      }
    }
    missing = missing.map((r, i) => [r, i] as const).sort((a, b) => compareMissing(a[0], b[0]) || a[1] - b[1]).map(([r]) => r);
    const impossible = missing.some((r) => r.permanent === true);
    let hidden = 0;
    if (opts.forActor !== undefined) {
      const actor = opts.forActor;
      const kept = missing.filter((r) => actorCanAct(r, actor, roles));
      hidden = missing.length - kept.length;
      hiddenTotal += hidden;
      missing = kept;
      if (missing.length === 0) continue;
    }
    blocks.push(
      Object.freeze({
        stage: s.key,
        hint: s.hint,
        satisfied: Object.freeze(results.filter((g) => g.result.satisfied).map((g) => g.guard)),
        missing: Object.freeze(missing),
        blocks: Object.freeze(downstream(def, s.key)),
        impossible,
        hidden,
      }),
    );
  }
  return {
    reached: sortedStages(reached),
    current: sortedStages(currentStages(def, reached)),
    blocks: Object.freeze(blocks),
    hidden: hiddenTotal,
    dead: [...dead].sort(),
    evolution,
  };
}

function flatten(rs: readonly Reason[]): Reason[] {
  const out: Reason[] = [];
  for (const r of rs) {
    out.push(r);
    if (r.kind === 'alternatives') for (const o of r.options) out.push(...flatten(o.reasons));
  }
  return out;
}

const samePath = (a: readonly EdnValue[] | undefined, b: readonly EdnValue[]): boolean =>
  a !== undefined && a.length === b.length && pathKey(a) === pathKey(b);

/** The block for a stage (`':triaged'`), if it is on the frontier and blocked. */
export function blockFor(result: ExplainResult, stage: string): ExplainBlock | undefined {
  return result.blocks.find((b) => b.stage === stage);
}

/** "explain for :s lists <path> as missing": a reason about that fact path (through `:or`). */
export function listsAsMissing(result: ExplainResult, stage: string, path: readonly EdnValue[]): boolean {
  const b = blockFor(result, stage);
  return b !== undefined && flatten(b.missing).some((r) => r.kind.startsWith('fact/') && samePath(reasonPath(r), path));
}

/** "explain for :s says only <role> may provide <path>": a `role/unsatisfied` reason for them. */
export function onlyRoleMayProvide(result: ExplainResult, stage: string, role: string, path: readonly EdnValue[]): boolean {
  const b = blockFor(result, stage);
  const roleKey = role.startsWith(':') ? role : `:${role}`;
  return (
    b !== undefined &&
    flatten(b.missing).some((r) => r.kind === 'role/unsatisfied' && r.role.toString() === roleKey && samePath(r.path, path))
  );
}
