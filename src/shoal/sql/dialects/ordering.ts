import type { Data, Node } from '../ast-node.js';

/** Every ordering item (`{this, desc, nulls_first}`) in a tree: ORDER BY, window ORDER BY, aggregate ORDER BY. */
export function orderingItems(root: Node): Data[] {
  const out: Data[] = [];
  const walk = (v: Data) => {
    if (!v || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.forEach(walk);
    if ('this' in v && 'desc' in v && 'nulls_first' in v) out.push(v);
    for (const x of Object.values(v)) walk(x);
  };
  walk(root);
  return out;
}

/** Make PostgreSQL's NULL ordering explicit: NULLS LAST ascending, NULLS FIRST descending. */
export function explicitNullOrdering(root: Node): void {
  for (const o of orderingItems(root)) if (o.nulls_first === null || o.nulls_first === undefined) o.nulls_first = !!o.desc;
}
