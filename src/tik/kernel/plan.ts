/**
 * The plan lens (upstream's `tik.plan`): a derived reading of cross-ticket `[:link :depends-on]`
 * edges and which tickets are settled — what is done, ready, blocked or caught in a dependency
 * cycle, the critical path, and how many tickets settling each one would unblock. Not a stored
 * schedule: it is re-derived on every read.
 *
 * Pure and total over hostile input: a `:depends-on` can be hand-set to form a cycle or to point
 * at no ticket. A dangling prerequisite is an ordinary node with no prerequisites of its own that
 * blocks unless settled (it never is). Cycles are found once by strongly connected components
 * (linear), not by a walk per node.
 */

export type PlanStatus = 'done' | 'cyclic' | 'blocked' | 'ready';

export interface PlanSummary {
  /** Every node, sorted: the tickets and any prerequisite they name. */
  readonly nodes: readonly string[];
  readonly status: ReadonlyMap<string, PlanStatus>;
  readonly done: readonly string[];
  readonly ready: readonly string[];
  readonly blocked: readonly string[];
  readonly cyclic: readonly string[];
  /** The longest chain of unsettled, acyclic nodes, deepest prerequisite first. */
  readonly criticalPath: readonly string[];
  /** node → how many not-ready nodes would become ready if it were settled. */
  readonly unlocks: ReadonlyMap<string, number>;
}

const NONE: ReadonlySet<string> = new Set();

/** Nodes on a cycle: in a strongly connected component of more than one node, or with a self-edge (iterative Tarjan). */
function cyclicNodes(nodes: readonly string[], prereqs: (n: string) => ReadonlySet<string>): Set<string> {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out = new Set<string>();
  let counter = 0;
  for (const root of nodes) {
    if (index.has(root)) continue;
    const work: { n: string; it: Iterator<string> }[] = [];
    const open = (n: string): void => {
      index.set(n, counter);
      low.set(n, counter);
      counter++;
      stack.push(n);
      onStack.add(n);
      work.push({ n, it: prereqs(n).values() });
    };
    open(root);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const step = top.it.next();
      if (!step.done) {
        const w = step.value;
        if (!index.has(w)) open(w);
        else if (onStack.has(w)) low.set(top.n, Math.min(low.get(top.n)!, index.get(w)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.n, Math.min(low.get(parent.n)!, low.get(top.n)!));
      if (low.get(top.n) === index.get(top.n)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== top.n);
        if (component.length > 1 || prereqs(top.n).has(top.n)) for (const c of component) out.add(c);
      }
    }
  }
  return out;
}

/** The plan over `edges` (node → the nodes it depends on) and the settled nodes. */
export function planSummary(edges: ReadonlyMap<string, ReadonlySet<string>>, settled: ReadonlySet<string>): PlanSummary {
  const all = new Set<string>(edges.keys());
  for (const ps of edges.values()) for (const p of ps) all.add(p);
  const nodes = [...all].sort();
  const prereqs = (n: string): ReadonlySet<string> => edges.get(n) ?? NONE;
  const cyclic = cyclicNodes(nodes, prereqs);
  const blockedBy = (n: string, done: ReadonlySet<string>, extra?: string): boolean => {
    for (const p of prereqs(n)) if (!done.has(p) && p !== extra) return true;
    return false;
  };
  const status = new Map<string, PlanStatus>();
  for (const n of nodes) status.set(n, settled.has(n) ? 'done' : cyclic.has(n) ? 'cyclic' : blockedBy(n, settled) ? 'blocked' : 'ready');
  const dependents = new Map<string, Set<string>>();
  for (const n of nodes) {
    for (const p of prereqs(n)) {
      let ds = dependents.get(p);
      if (!ds) dependents.set(p, (ds = new Set()));
      ds.add(n);
    }
  }
  const unlocks = new Map<string, number>();
  for (const n of nodes) {
    let count = 0;
    for (const d of dependents.get(n) ?? NONE) {
      if (!settled.has(d) && !cyclic.has(d) && blockedBy(d, settled) && !blockedBy(d, settled, n)) count++;
    }
    unlocks.set(n, count);
  }
  // Longest path over the DAG left once settled and cyclic nodes are dropped, kept as a depth and
  // the best prerequisite per node (not a copied chain: a long chain would be quadratic). Ties go
  // to the smaller id, so the answer never depends on iteration order.
  const skip = (n: string): boolean => settled.has(n) || cyclic.has(n);
  const depth = new Map<string, number>();
  const via = new Map<string, string>();
  const measure = (start: string): void => {
    // iterative post-order: a deep chain must not overflow the stack
    const todo: { n: string; expanded: boolean }[] = [{ n: start, expanded: false }];
    while (todo.length > 0) {
      const top = todo[todo.length - 1]!;
      if (depth.has(top.n)) {
        todo.pop();
        continue;
      }
      const ps = [...prereqs(top.n)].filter((p) => !skip(p));
      if (!top.expanded) {
        top.expanded = true;
        for (const p of ps) if (!depth.has(p)) todo.push({ n: p, expanded: false });
        continue;
      }
      todo.pop();
      let best: string | undefined;
      for (const p of ps) {
        const d = depth.get(p)!;
        const b = best === undefined ? -1 : depth.get(best)!;
        if (d > b || (d === b && p < best!)) best = p;
      }
      depth.set(top.n, best === undefined ? 1 : depth.get(best)! + 1);
      if (best !== undefined) via.set(top.n, best);
    }
  };
  let end: string | undefined;
  for (const n of nodes) {
    if (skip(n)) continue;
    measure(n);
    if (end === undefined || depth.get(n)! > depth.get(end)!) end = n;
  }
  const criticalPath: string[] = [];
  for (let n = end; n !== undefined; n = via.get(n)) criticalPath.push(n);
  criticalPath.reverse();
  const having = (s: PlanStatus): string[] => nodes.filter((n) => status.get(n) === s);
  return { nodes, status, done: having('done'), ready: having('ready'), blocked: having('blocked'), cyclic: having('cyclic'), criticalPath, unlocks };
}
