import { didYouMean } from '../config/did-you-mean.js';
import { ShoalError } from '../errors.js';
import { type Data, type Node, children, dataOf, identName, positionOf, typeOf } from './ast-node.js';

/** A catalog table in a query scope, under the name the query uses for it. */
export interface ScopedTable {
  readonly qualifier: string;
  readonly tableKey: string;
  /** The columns the role can see: any other name is unknown to it, hidden or not. */
  readonly visible: ReadonlySet<string>;
}

type Source = { readonly qualifier: string | undefined; readonly table?: ScopedTable };
type Scope = { readonly sources: readonly Source[]; readonly outputAliases: ReadonlySet<string> };

const SCOPE_NODES = new Set(['select', 'union', 'intersect', 'except']);

/**
 * Report references to unknown columns of catalog tables with a position (a hidden column is
 * unknown to the role: indistinguishable from a missing one), before
 * anything runs. Security does not depend on this pass (the governed subquery exposes only
 * visible columns, so a miss here fails closed at the engine); it exists to give a 4xx with a
 * precise message. Where a name could bind to a source whose columns are not known here
 * (derived tables, CTEs, functions), the check stays silent.
 */
export function checkColumns(stmt: Node, tableOf: (tableNode: Node) => ScopedTable | undefined, sql?: string): void {
  const visitQuery = (q: Node, outer: readonly Scope[]) => {
    const t = typeOf(q);
    const d = dataOf(q) ?? {};
    for (const c of d.with?.ctes ?? []) visitQuery(c.this, outer);
    if (t !== 'select') {
      for (const [c] of children(q)) if (SCOPE_NODES.has(typeOf(c)) || typeOf(c) === 'subquery') visitAny(c, outer);
      return;
    }
    const sources: Source[] = [];
    const addSource = (n: Node) => {
      const nt = typeOf(n);
      const nd = dataOf(n);
      if (nt === 'table') {
        const st = tableOf(n);
        sources.push({ qualifier: identName(nd.alias) ?? identName(nd.name), ...(st ? { table: st } : {}) });
      } else if (nt === 'joined_table') {
        addSource(nd.left);
        for (const j of nd.joins ?? []) addSource(j.this);
      } else if (nt === 'paren') addSource(nd.this);
      else sources.push({ qualifier: identName(nd?.alias) });
    };
    for (const f of d.from?.expressions ?? []) addSource(f);
    for (const j of d.joins ?? []) addSource(j.this);
    const outputAliases = new Set<string>(
      (d.expressions ?? []).filter((e: Node) => typeOf(e) === 'alias').map((e: Node) => identName(dataOf(e).alias)!),
    );
    const scope: Scope = { sources, outputAliases };
    const chain = [...outer, scope];
    // FROM items are visited with the outer scopes only (LATERAL: the enclosing one too)
    const visitFromItem = (f: Node) => {
      if (typeOf(f) === 'joined_table') {
        visitFromItem(dataOf(f).left);
        for (const j of dataOf(f).joins ?? []) {
          visitFromItem(j.this);
          if (j.on) visitAny(j.on, chain);
        }
      } else visitAny(f, dataOf(f)?.lateral ? chain : outer);
    };
    for (const f of [...(d.from?.expressions ?? []), ...(d.joins ?? []).map((j: Data) => j.this)]) visitFromItem(f);
    for (const [c, p] of children(q)) {
      if (p.startsWith('from.') || p.startsWith('with.') || /^joins\[\d+\]\.this$/.test(p)) continue;
      visitAny(c, chain);
    }
  };
  const visitAny = (n: Node, chain: readonly Scope[]) => {
    const t = typeOf(n);
    if (SCOPE_NODES.has(t)) return visitQuery(n, chain);
    if (t === 'column') return checkColumn(n, chain);
    if (t === 'table') return;
    for (const [c] of children(n)) visitAny(c, chain);
  };
  const checkColumn = (n: Node, chain: readonly Scope[]) => {
    const d = dataOf(n);
    const name = identName(d.name)!;
    const qualifier = identName(d.table);
    const position = positionOf(n, sql);
    const at = position ? { position } : {};
    // a column hidden from the role is reported exactly like one that does not exist: same code,
    // same message, and suggestions only from the columns the role can see
    if (qualifier !== undefined) {
      for (let i = chain.length - 1; i >= 0; i--) {
        const src = chain[i]!.sources.find((s) => s.qualifier === qualifier);
        if (!src) continue;
        if (!src.table) return;
        if (!src.table.visible.has(name)) {
          const guess = didYouMean(name, src.table.visible);
          throw new ShoalError('SQL_UNKNOWN_COLUMN', `column "${name}" does not exist in ${src.table.tableKey} (as ${qualifier})`, {
            ...at, hint: `${guess ? `did you mean "${guess}"? ` : ''}columns: ${[...src.table.visible].join(', ')}`,
          });
        }
        return;
      }
      if (chain.every((s) => s.sources.every((x) => x.table))) {
        throw new ShoalError('SQL_UNKNOWN_COLUMN', `"${qualifier}.${name}" names no table in the query`, {
          ...at, hint: 'qualify columns with a table alias from the FROM clause',
        });
      }
      return;
    }
    const seen = new Set<string>();
    for (let i = chain.length - 1; i >= 0; i--) {
      const scope = chain[i]!;
      if (scope.sources.some((s) => s.table?.visible.has(name))) return;
      if (scope.sources.some((s) => !s.table)) return;
      if (i === chain.length - 1 && scope.outputAliases.has(name)) return;
      // a whole-row reference (`SELECT c FROM t c`) reads the governed row: allowed
      if (scope.sources.some((s) => s.qualifier === name)) return;
      for (const s of scope.sources) for (const c of s.table?.visible ?? []) seen.add(c);
    }
    const guess = didYouMean(name, seen);
    throw new ShoalError('SQL_UNKNOWN_COLUMN', `column "${name}" does not exist`, {
      ...at, hint: guess ? `did you mean "${guess}"?` : 'check the column name against the table\'s registered columns',
    });
  };
  visitAny(stmt, []);
}
