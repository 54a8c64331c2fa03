/**
 * Orders events so that every parent present in the list comes before its children (ties by
 * time, then id). Ids are content hashes, so the parent graph has no cycles.
 */
export function parentsFirst<E extends { readonly id: string; readonly at: number; readonly parents: readonly string[] }>(events: readonly E[]): E[] {
  const byId = new Map(events.map((e) => [e.id, e] as const));
  const sorted = [...events].sort((a, b) => (a.at !== b.at ? a.at - b.at : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const done = new Set<string>();
  const out: E[] = [];
  const visit = (e: E): void => {
    // iterative DFS: deep chains must not overflow the stack
    const stack: { e: E; i: number }[] = [{ e, i: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (done.has(top.e.id)) {
        stack.pop();
        continue;
      }
      if (top.i < top.e.parents.length) {
        const p = byId.get(top.e.parents[top.i++]!);
        if (p && !done.has(p.id)) stack.push({ e: p, i: 0 });
        continue;
      }
      done.add(top.e.id);
      out.push(top.e);
      stack.pop();
    }
  };
  for (const e of sorted) visit(e);
  return out;
}
