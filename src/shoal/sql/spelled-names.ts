/**
 * The names PostgreSQL gives the top-level result columns, fixed before governance rewrites
 * anything. Two things are lost later: `now()` and friends become literals (and would be named
 * after their cast), and the parser folds synonyms into one typed node (`substr` and `substring`,
 * `char_length` and `length`, `position` and `strpos`, `ceiling` and `ceil`, `pow` and `power`),
 * while PostgreSQL names a call after the function as written. The spelling is read back from
 * the select list of the SQL text.
 */
import { type Node, dataOf, typeOf } from './ast-node.js';
import { pgColumnName } from './output-columns.js';

/** Typed nodes that stand for several spellings, with the spellings PostgreSQL names them by. */
const SYNONYMS: Readonly<Record<string, ReadonlySet<string>>> = {
  length: new Set(['length', 'char_length', 'character_length']),
  substring: new Set(['substring', 'substr']),
  str_position: new Set(['position', 'strpos']),
  ceil: new Set(['ceil', 'ceiling']),
  power: new Set(['power', 'pow']),
};

/** The leftmost SELECT of a query (the one whose select list names the result). */
export function leftmostSelect(stmt: Node): Node | undefined {
  let q: Node = stmt;
  for (;;) {
    const t = typeOf(q);
    if (t === 'select') return q;
    if (t === 'union' || t === 'intersect' || t === 'except') q = dataOf(q).left;
    else if (t === 'subquery' || t === 'paren') q = dataOf(q).this;
    else return undefined;
  }
}

/** The node a name is derived from: casts and parentheses name after what they wrap. */
function named(e: Node): Node {
  let n = e;
  while (typeOf(n) === 'paren' || typeOf(n) === 'cast') n = dataOf(n).this;
  return n;
}

type Token = { readonly kind: 'word' | 'quoted' | 'punct' | 'other'; readonly text: string };

/** A small lexer: enough to find the top-level select list and each item's first tokens. */
function tokens(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (/\s/.test(c)) i++;
    else if (c === '-' && sql[i + 1] === '-') i = sql.indexOf('\n', i) < 0 ? sql.length : sql.indexOf('\n', i);
    else if (c === '/' && sql[i + 1] === '*') i = sql.indexOf('*/', i + 2) < 0 ? sql.length : sql.indexOf('*/', i + 2) + 2;
    else if (c === "'" || c === '"') {
      let j = i + 1;
      for (;;) {
        if (j >= sql.length) break;
        if (sql[j] === c) {
          if (sql[j + 1] === c) j += 2;
          else break;
        } else j++;
      }
      out.push({ kind: c === '"' ? 'quoted' : 'other', text: sql.slice(i + 1, j).replace(c === '"' ? /""/g : /''/g, c) });
      i = j + 1;
    } else if (/[A-Za-z_\u0080-\uffff]/.test(c)) {
      let j = i + 1;
      while (j < sql.length && /[A-Za-z0-9_$\u0080-\uffff]/.test(sql[j]!)) j++;
      out.push({ kind: 'word', text: sql.slice(i, j) });
      i = j;
    } else if ('(),'.includes(c)) {
      out.push({ kind: 'punct', text: c });
      i++;
    } else {
      out.push({ kind: 'other', text: c });
      i++;
    }
  }
  return out;
}

const LIST_END = new Set(['from', 'where', 'group', 'having', 'order', 'limit', 'offset', 'fetch', 'union', 'intersect', 'except', 'window', 'into', 'for']);

/** The first function name of each top-level select-list item, as spelled; undefined when the text cannot be split. */
function spelledCalls(sql: string): (string | undefined)[] | undefined {
  const ts = tokens(sql);
  let depth = 0;
  let start = -1;
  for (let i = 0; i < ts.length; i++) {
    const t = ts[i]!;
    if (t.text === '(') depth++;
    else if (t.text === ')') depth--;
    else if (depth === 0 && t.kind === 'word' && t.text.toLowerCase() === 'select') {
      start = i + 1;
      break;
    }
  }
  if (start < 0) return undefined;
  if (ts[start]?.kind === 'word' && /^(all|distinct)$/i.test(ts[start]!.text)) {
    if (/^distinct$/i.test(ts[start]!.text) && ts[start + 1]?.kind === 'word' && /^on$/i.test(ts[start + 1]!.text)) return undefined;
    start++;
  }
  const items: Token[][] = [[]];
  depth = 0;
  for (let i = start; i < ts.length; i++) {
    const t = ts[i]!;
    if (depth === 0 && t.kind === 'word' && LIST_END.has(t.text.toLowerCase())) break;
    if (depth === 0 && t.text === ')') break;
    if (t.text === '(') depth++;
    if (t.text === ')') depth--;
    if (depth === 0 && t.text === ',') items.push([]);
    else items[items.length - 1]!.push(t);
  }
  return items.map((it) => {
    const [a, b] = it;
    if (!a || !b || b.text !== '(') return undefined;
    if (a.kind === 'word') return a.text.toLowerCase();
    return a.kind === 'quoted' ? a.text : undefined;
  });
}

/**
 * Names of the top-level result expressions (keyed by expression node), computed on the parsed
 * statement before any rewrite. Aliases, columns and stars are left out: they name themselves.
 */
export function spelledNames(stmt: Node, sql: string | undefined): Map<Node, string> {
  const names = new Map<Node, string>();
  const sel = leftmostSelect(stmt);
  if (!sel) return names;
  const exprs: Node[] = dataOf(sel).expressions ?? [];
  let calls: (string | undefined)[] | undefined;
  for (const [i, e] of exprs.entries()) {
    const t = typeOf(e);
    if (t === 'alias' || t === 'column' || t === 'star' || t === 'subquery') continue;
    let name = pgColumnName(e);
    const synonyms = SYNONYMS[typeOf(named(e))];
    if (synonyms && sql !== undefined) {
      calls ??= spelledCalls(sql) ?? [];
      const spelled = calls.length === exprs.length ? calls[i] : undefined;
      if (spelled !== undefined && synonyms.has(spelled)) name = spelled;
    }
    names.set(e, name);
  }
  return names;
}
