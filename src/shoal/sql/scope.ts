import { type Data, type Node, allNodes, children, dataOf, identName, typeOf } from './ast-node.js';

/** One table reference in a statement, bound by PostgreSQL scoping rules. */
export interface TableRef {
  /** The `{table: …}` node itself (object identity is the handle for rewriting). */
  readonly node: Node;
  /** Identifier parts as PostgreSQL binds them: catalog, schema, name (absent parts omitted). */
  readonly parts: readonly string[];
  readonly alias?: string;
  /** The CTE definition this reference binds to, if any. */
  readonly cte?: Data;
  readonly path: string;
}

/**
 * Every table reference, per scope (study §2): a CTE is visible to later siblings and to the main
 * query; under RECURSIVE also to itself and earlier siblings; a qualified name is never a CTE.
 */
export function enumerateTables(root: Node): TableRef[] {
  const out: TableRef[] = [];
  type Scope = Map<string, Data>[];
  const visit = (node: Node, scope: Scope, path: string) => {
    const t = typeOf(node);
    const d = dataOf(node) ?? {};
    let sc = scope;
    const ctes: Data[] | undefined = d.with?.ctes;
    if (Array.isArray(ctes)) {
      const recursive = !!d.with.recursive;
      ctes.forEach((c, i) => {
        const visible = new Map(ctes.filter((_, j) => recursive || j < i).map((x) => [identName(x.alias)!, x]));
        visit(c.this, [...scope, visible], `${path}/${t}.with.ctes[${i}]`);
      });
      sc = [...scope, new Map(ctes.map((x) => [identName(x.alias)!, x]))];
    }
    if (t === 'table') {
      const name = identName(d.name)!;
      const binding = !d.schema && !d.catalog ? [...sc].reverse().find((m) => m.has(name))?.get(name) : undefined;
      const parts = [identName(d.catalog), identName(d.schema), name].filter((x): x is string => x !== undefined);
      const alias = identName(d.alias);
      out.push({ node, parts, ...(alias !== undefined ? { alias } : {}), ...(binding ? { cte: binding } : {}), path });
      return;
    }
    // `with.` only: a bare startsWith('with') would also skip `within_group`, which can hold subqueries
    for (const [c, p] of children(node)) if (!p.startsWith('with.')) visit(c, sc, `${path}/${t}.${p}`);
  };
  visit(root, [], '');
  return out;
}

/**
 * CTE hygiene (hazard H3): give every CTE a fresh name and rebind its references, so no engine
 * can resolve a CTE name to a base table or the other way round. Unaliased references keep
 * their old name as alias, so `name.col` still resolves.
 */
export function renameCtes(stmt: Node, prefix = '__cte_'): void {
  const refs = enumerateTables(stmt);
  const fresh = new Map<Data, string>();
  let n = 0;
  for (const [node] of allNodes(stmt)) for (const c of dataOf(node)?.with?.ctes ?? []) fresh.set(c, `${prefix}${++n}`);
  for (const r of refs) {
    if (!r.cte) continue;
    const t = dataOf(r.node);
    if (!t.alias) t.alias = { name: t.name.name, quoted: t.name.quoted, trailing_comments: [] };
    t.name = { name: fresh.get(r.cte)!, quoted: false, trailing_comments: [] };
  }
  for (const [c, name] of fresh) c.alias = { ...c.alias, name, quoted: false };
}
