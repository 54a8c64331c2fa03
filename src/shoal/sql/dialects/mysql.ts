import { type Node, allNodes, dataOf, typeOf } from '../ast-node.js';
import { orderingItems } from './ordering.js';

/** MySQL 8 (ICU) writes regex group references `$1`; MariaDB (PCRE) and PostgreSQL write `\1` (H8). */
export type MysqlFlavour = 'mysql8' | 'mariadb';

/**
 * MySQL has no NULLS FIRST/LAST and orders NULLs first ascending: emulate PostgreSQL's order with
 * a leading `x IS NULL` key. Regex replacements are rewritten for MySQL 8's `$n` syntax.
 */
export function adaptForMysql(stmt: Node, flavour: MysqlFlavour): void {
  for (const holder of orderingHolders(stmt)) {
    const items: Node[] = holder.list;
    const out: Node[] = [];
    for (const o of items) {
      const nullsFirst = o.nulls_first ?? !!o.desc;
      out.push({ this: { is_null: { this: structuredClone(o.this), not: false, postfix_form: false } }, desc: nullsFirst, nulls_first: null, explicit_asc: false });
      out.push({ ...o, nulls_first: null });
    }
    holder.set(out);
  }
  if (flavour === 'mysql8') {
    for (const [n] of allNodes(stmt)) {
      const t = typeOf(n);
      const d = dataOf(n);
      const repl = t === 'regexp_replace' ? d.replacement : t === 'function' && /^regexp_replace$/i.test(d.name) ? d.args?.[2] : undefined;
      if (repl && typeOf(repl) === 'literal') dataOf(repl).value = String(dataOf(repl).value).replace(/\$/g, '\\$').replace(/\\(\d)/g, '$$$1');
    }
  }
}

function orderingHolders(stmt: Node): { list: Node[]; set: (v: Node[]) => void }[] {
  const out: { list: Node[]; set: (v: Node[]) => void }[] = [];
  const items = new Set(orderingItems(stmt));
  const walk = (v: Node) => {
    if (!v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (Array.isArray(x) && x.length && x.every((i) => items.has(i))) out.push({ list: x, set: (nv) => { (v as Record<string, unknown>)[k] = nv; } });
      if (x && typeof x === 'object') walk(x as Node);
    }
  };
  walk(stmt);
  return out;
}
