/**
 * The three-part table names in Trino SQL text, found by a scanner that knows Trino's lexical
 * rules (string literals, quoted identifiers, comments), so a name inside a literal or a comment
 * is never taken for a table. The Trino engine uses it to find the entries a query reads and to
 * point a landed entry's name at the table its query landed (per query, never shared).
 */

/** One name of three or more dotted parts: where its first three parts are, and them, lower case. */
export interface TableReference {
  readonly start: number;
  /** The end of the third part (a fourth part, a column, stays as written). */
  readonly end: number;
  /** catalog, schema, table — lower case: Trino folds every catalog, schema and table name. */
  readonly parts: readonly [string, string, string];
}

const BARE_START = /[A-Za-z_]/;
const BARE = /[A-Za-z0-9_]/;
const SPACE = /\s/;

/** Skip a string literal, quoted identifier or comment starting at `i`; the index after it, or `i`. */
function skipOpaque(sql: string, i: number): number {
  const c = sql[i];
  if (c === "'") {
    for (let j = i + 1; j < sql.length; j++) {
      if (sql[j] === "'") {
        if (sql[j + 1] === "'") j++;
        else return j + 1;
      }
    }
    return sql.length;
  }
  if (c === '-' && sql[i + 1] === '-') {
    const nl = sql.indexOf('\n', i);
    return nl < 0 ? sql.length : nl + 1;
  }
  if (c === '/' && sql[i + 1] === '*') {
    const close = sql.indexOf('*/', i + 2);
    return close < 0 ? sql.length : close + 2;
  }
  return i;
}

/** One identifier at `i` (quoted or bare): its folded name and the index after it. */
function readPart(sql: string, i: number): { name: string; next: number } | undefined {
  if (sql[i] === '"') {
    let name = '';
    for (let j = i + 1; j < sql.length; j++) {
      if (sql[j] === '"') {
        if (sql[j + 1] === '"') {
          name += '"';
          j++;
        } else return { name: name.toLowerCase(), next: j + 1 };
      } else name += sql[j];
    }
    return undefined;
  }
  if (!BARE_START.test(sql[i] ?? '')) return undefined;
  let j = i + 1;
  while (j < sql.length && BARE.test(sql[j]!)) j++;
  return { name: sql.slice(i, j).toLowerCase(), next: j };
}

function skipSpace(sql: string, i: number): number {
  while (i < sql.length && SPACE.test(sql[i]!)) i++;
  return i;
}

/** Every name of three or more parts in `sql`, in order. */
export function tableReferences(sql: string): TableReference[] {
  const out: TableReference[] = [];
  let i = 0;
  while (i < sql.length) {
    const skipped = skipOpaque(sql, i);
    if (skipped !== i) {
      i = skipped;
      continue;
    }
    const c = sql[i]!;
    if (/[0-9]/.test(c)) {
      // a number (1.5, 1e3): never the start of a name
      while (i < sql.length && /[0-9A-Za-z_.]/.test(sql[i]!)) i++;
      continue;
    }
    const first = readPart(sql, i);
    if (first === undefined) {
      i++;
      continue;
    }
    // a dotted chain: part (space* . space* part)*
    const parts = [first.name];
    let end = first.next;
    const ends = [end];
    for (;;) {
      const dot = skipSpace(sql, end);
      if (sql[dot] !== '.') break;
      const part = readPart(sql, skipSpace(sql, dot + 1));
      if (part === undefined) break;
      parts.push(part.name);
      end = part.next;
      ends.push(end);
    }
    if (parts.length >= 3) out.push({ start: i, end: ends[2]!, parts: [parts[0]!, parts[1]!, parts[2]!] });
    i = end;
  }
  return out;
}

/** `sql` with each reference `rename` gives a name for replaced by that name (the rest as written). */
export function renameTables(sql: string, rename: (ref: TableReference) => string | undefined): string {
  let out = '';
  let at = 0;
  for (const ref of tableReferences(sql)) {
    const to = rename(ref);
    if (to === undefined) continue;
    out += sql.slice(at, ref.start) + to;
    at = ref.end;
  }
  return out + sql.slice(at);
}
