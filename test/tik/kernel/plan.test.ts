import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planSummary } from '../../../src/tik/kernel/plan.js';

type Edges = Map<string, Set<string>>;
const edgesOf = (o: Record<string, string[]>): Edges => new Map(Object.entries(o).map(([k, v]) => [k, new Set(v)]));

// The reference: upstream's definitions, written naively (a walk per node).
function reachable(edges: Edges, n: string): Set<string> {
  const seen = new Set<string>();
  const stack = [...(edges.get(n) ?? [])];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (seen.has(x)) continue;
    seen.add(x);
    stack.push(...(edges.get(x) ?? []));
  }
  return seen;
}
const inCycle = (edges: Edges, n: string): boolean => reachable(edges, n).has(n);
const blocked = (edges: Edges, settled: Set<string>, n: string): boolean => [...(edges.get(n) ?? [])].some((p) => !settled.has(p));
function naiveLongest(edges: Edges, settled: Set<string>, nodes: string[]): number {
  const skip = (n: string): boolean => settled.has(n) || inCycle(edges, n);
  const lp = (n: string): number => 1 + Math.max(0, ...[...(edges.get(n) ?? [])].filter((p) => !skip(p)).map(lp));
  return Math.max(0, ...nodes.filter((n) => !skip(n)).map(lp));
}

describe('plan', () => {
  it('classifies, ranks unlocks and finds the critical path (upstream plan_test shapes)', () => {
    // a <- b <- c ; d settled <- e ; x <-> y cycle ; f depends on a dangling ticket
    const s = planSummary(edgesOf({ b: ['a'], c: ['b'], e: ['d'], x: ['y'], y: ['x'], f: ['nowhere'], a: [], d: [] }), new Set(['d']));
    expect(s.ready).toEqual(['a', 'e', 'nowhere']);
    expect(s.blocked).toEqual(['b', 'c', 'f']);
    expect(s.cyclic).toEqual(['x', 'y']);
    expect(s.done).toEqual(['d']);
    expect(s.criticalPath).toEqual(['a', 'b', 'c']);
    expect(s.unlocks.get('a')).toBe(1);
    expect(s.unlocks.get('b')).toBe(1);
    expect(s.unlocks.get('nowhere')).toBe(1);
    expect(s.unlocks.get('c')).toBe(0);
  });

  it('a self-dependency is a cycle', () => {
    expect(planSummary(edgesOf({ a: ['a'] }), new Set()).cyclic).toEqual(['a']);
  });

  it('a long chain does not overflow the stack', () => {
    const o: Record<string, string[]> = {};
    for (let i = 1; i < 20_000; i++) o[`n${String(i).padStart(6, '0')}`] = [`n${String(i - 1).padStart(6, '0')}`];
    const s = planSummary(edgesOf(o), new Set());
    expect(s.criticalPath.length).toBe(20_000);
    expect(s.ready).toEqual(['n000000']);
  });

  it('agrees with the naive reference on any graph (status, unlocks, critical path length and validity)', () => {
    const node = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g');
    fc.assert(
      fc.property(fc.dictionary(node, fc.uniqueArray(node, { maxLength: 3 })), fc.uniqueArray(node, { maxLength: 4 }), (o, done) => {
        const edges = edgesOf(o);
        const settled = new Set<string>(done);
        const s = planSummary(edges, settled);
        for (const n of s.nodes) {
          const want = settled.has(n) ? 'done' : inCycle(edges, n) ? 'cyclic' : blocked(edges, settled, n) ? 'blocked' : 'ready';
          expect(s.status.get(n), n).toBe(want);
          const after = new Set([...settled, n]);
          const unlock = s.nodes.filter((d) => (edges.get(d) ?? new Set()).has(n) && !settled.has(d) && blocked(edges, settled, d) && !blocked(edges, after, d) && !inCycle(edges, d)).length;
          expect(s.unlocks.get(n), n).toBe(unlock);
        }
        expect(s.criticalPath.length).toBe(naiveLongest(edges, settled, [...s.nodes]));
        for (let i = 1; i < s.criticalPath.length; i++) expect(edges.get(s.criticalPath[i]!)?.has(s.criticalPath[i - 1]!)).toBe(true);
        for (const n of s.criticalPath) expect(settled.has(n) || inCycle(edges, n)).toBe(false);
      }),
      { numRuns: 400 },
    );
  });
});
