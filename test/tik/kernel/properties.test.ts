// Laws of the reducer and of derivation (ARCHITECTURE "How we test"; tik-model.md §3.1, §6.2).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emit } from '../../../src/tik/edn/index.js';
import { Instant } from '../../../src/tik/edn/value.js';
import {
  ancestorsOf,
  currentStages,
  effectiveReached,
  evaluateGuards,
  explain,
  factMap,
  factStatus,
  reasonKey,
  reduce,
  type Reason,
  type TicketState,
  type TikEvent,
} from '../../../src/tik/kernel/index.js';
import { PATHS, build, historyArb, nowArb } from './arbitrary.js';
import { loadDef, path, registerRoles } from './builders.js';

const SUPPORT = loadDef('processes/support-request.edn');
const ROLES = registerRoles(SUPPORT);

/** Everything observable about a state, as comparable text. */
function observe(s: TicketState): string {
  const facts = PATHS.map((p) => {
    const st = factStatus(s, path(p));
    const claims = st.status === 'conflicted' ? st.claims.map((c) => c.event).sort() : [];
    return JSON.stringify({ ...st, claims, disputes: undefined }, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v instanceof Object && 'ms' in v ? (v as Instant).ms : v)) + emit(st.status === 'present' ? st.value : null);
  });
  const fm = [...factMap(s)].map(([k, v]) => `${k}=${emit(v.value)}`);
  const arts = [...s.artifacts].map(([k, a]) => `${k}:${a.event}`).sort();
  return JSON.stringify({ facts, fm, arts, log: s.log.map((e) => e.id), title: s.title === undefined ? null : emit(s.title) });
}

const shuffle = <T>(xs: readonly T[], seed: number): T[] => {
  const out = [...xs];
  let x = seed || 1;
  for (let i = out.length - 1; i > 0; i--) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    const j = x % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
};

const reachedText = (events: readonly TikEvent[], now: number): string => [...effectiveReached(SUPPORT, events, new Instant(now), ROLES)].sort().join(' ');

describe('reducer laws', () => {
  it('reducer is total: any history reduces and derives without throwing', () => {
    fc.assert(
      fc.property(historyArb(), nowArb, (ops, now) => {
        const events = build(ops);
        reduce(events);
        effectiveReached(SUPPORT, events, new Instant(now), ROLES);
        explain(SUPPORT, events, new Instant(now), ROLES);
      }),
      { numRuns: 60 },
    );
  });

  it('reducer is commutative: any permutation gives the same state and stages', () => {
    fc.assert(
      fc.property(historyArb(), nowArb, fc.integer(), (ops, now, seed) => {
        const events = build(ops);
        const perm = shuffle(events, seed);
        expect(observe(reduce(perm))).toBe(observe(reduce(events)));
        expect(reachedText(perm, now)).toBe(reachedText(events, now));
      }),
      { numRuns: 60 },
    );
  });

  it('reducer is idempotent under duplication', () => {
    fc.assert(
      fc.property(historyArb(), nowArb, fc.array(fc.nat(), { maxLength: 10 }), (ops, now, dups) => {
        const events = build(ops);
        const doubled = [...events, ...dups.map((i) => events[i % events.length] as TikEvent)];
        expect(observe(reduce(doubled))).toBe(observe(reduce(events)));
        expect(reachedText(doubled, now)).toBe(reachedText(events, now));
      }),
      { numRuns: 60 },
    );
  });

  it('derivation is deterministic: the same set derives the same answer twice', () => {
    fc.assert(
      fc.property(historyArb(), nowArb, (ops, now) => {
        const events = build(ops);
        expect(reachedText(events, now)).toBe(reachedText([...events], now));
      }),
      { numRuns: 30 },
    );
  });
});

describe('explain laws (§7.1)', () => {
  // Reasons compared without explain's permanence marks (guards never set them).
  const unmark = (r: Reason): Reason => {
    const { permanent: _p, ...rest } = r;
    return (rest.kind === 'alternatives' ? { ...rest, options: rest.options.map((o) => ({ ...o, reasons: o.reasons.map(unmark) })) } : rest) as Reason;
  };
  const strip = (r: Reason): string => reasonKey(unmark(r));

  it('explain is sound: every reported reason is re-derived by a guard of its stage', () => {
    fc.assert(
      fc.property(historyArb(), nowArb, (ops, nowMs) => {
        const events = build(ops);
        const now = new Instant(nowMs);
        const r = explain(SUPPORT, events, now, ROLES);
        const ctx = { state: r.evolution.state, def: SUPPORT, now, reached: r.evolution.reached, roles: ROLES };
        for (const b of r.blocks) {
          const stage = SUPPORT.stageByKey.get(b.stage);
          const derived = new Set(evaluateGuards(stage?.guards ?? [], ctx).results.flatMap((g) => g.result.reasons.map(strip)));
          for (const m of b.missing) expect(derived.has(strip(m))).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('explain is complete: every frontier stage is explained (the reached set is a fixpoint)', () => {
    fc.assert(
      fc.property(historyArb(), nowArb, (ops, nowMs) => {
        const events = build(ops);
        const r = explain(SUPPORT, events, new Instant(nowMs), ROLES);
        const reached = r.evolution.reached;
        const frontier = SUPPORT.stages.filter((s) => !reached.has(s.key) && s.afterKeys.every((a) => reached.has(a))).map((s) => s.key);
        expect(r.blocks.map((b) => b.stage)).toEqual(frontier);
        for (const b of r.blocks) expect(b.missing.length).toBeGreaterThan(0);
      }),
      { numRuns: 60 },
    );
  });

  it('for-actor only hides: kept + hidden = all, and nothing kept is unactionable', () => {
    fc.assert(
      fc.property(historyArb(), nowArb, fc.constantFrom('seb', 'billing', 'rando'), (ops, nowMs, actor) => {
        const events = build(ops);
        const all = explain(SUPPORT, events, new Instant(nowMs), ROLES);
        const mine = explain(SUPPORT, events, new Instant(nowMs), ROLES, { forActor: actor });
        const total = all.blocks.reduce((n, b) => n + b.missing.length, 0);
        const kept = mine.blocks.reduce((n, b) => n + b.missing.length, 0);
        expect(kept + mine.hidden).toBe(total);
        for (const b of mine.blocks) for (const m of b.missing) expect(m.permanent).toBeUndefined();
      }),
      { numRuns: 40 },
    );
  });
});

describe('current stages (§6.3)', () => {
  it('current stages are the reached tips: every reached stage is current or an ancestor of a current one', () => {
    fc.assert(
      fc.property(historyArb(), nowArb, (ops, nowMs) => {
        const reached = effectiveReached(SUPPORT, build(ops), new Instant(nowMs), ROLES);
        const current = currentStages(SUPPORT, reached);
        const anc = ancestorsOf(SUPPORT);
        for (const c of current) {
          expect(reached.has(c)).toBe(true);
          for (const r of reached) expect(anc.get(r)?.has(c)).toBeFalsy();
        }
        for (const r of reached) expect(current.has(r) || [...current].some((c) => anc.get(c)?.has(r))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});

describe('replica convergence (T2)', () => {
  it('two replicas holding overlapping subsets derive the same once they union, in either order', () => {
    fc.assert(
      fc.property(historyArb(), nowArb, fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 30 }), (ops, now, split) => {
        const events = build(ops);
        // 0: only on A, 1: only on B, 2: on both.
        const side = (i: number): number => split[i] ?? 2;
        const a = events.filter((_, i) => side(i) !== 1);
        const b = events.filter((_, i) => side(i) !== 0);
        const ab = [...a, ...b];
        const ba = [...b, ...a];
        expect(observe(reduce(ab))).toBe(observe(reduce(events)));
        expect(observe(reduce(ba))).toBe(observe(reduce(events)));
        expect(reachedText(ab, now)).toBe(reachedText(events, now));
        expect(reachedText(ba, now)).toBe(reachedText(events, now));
      }),
      { numRuns: 50 },
    );
  });
});
