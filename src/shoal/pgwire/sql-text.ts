/**
 * SQL text as the wire protocol needs to see it, before any parser: where a Query message's
 * statements end (`;` outside quotes and comments) and where the `$n` parameter placeholders of
 * an extended-protocol statement are. Quotes are PostgreSQL's: '…' (with ''), E'…' (with
 * backslash escapes), "…", $tag$…$tag$, -- and nested /* *\/ comments.
 */

interface Piece {
  /** 'code' text, or a placeholder `$n` (n ≥ 1). */
  readonly kind: 'code' | 'param';
  readonly text: string;
  readonly n?: number;
}

/** Scan `sql` into code and placeholders; `onSemicolon` sees the offset of every top-level `;`. */
function scan(sql: string, onSemicolon?: (at: number) => void): Piece[] {
  const pieces: Piece[] = [];
  let start = 0;
  let i = 0;
  const len = sql.length;
  const isIdent = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_$\u0080-\uffff]/.test(c);
  while (i < len) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (c === '-' && next === '-') {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? len : nl + 1;
    } else if (c === '/' && next === '*') {
      let depth = 1;
      i += 2;
      while (i < len && depth > 0) {
        if (sql[i] === '/' && sql[i + 1] === '*') {
          depth++;
          i += 2;
        } else if (sql[i] === '*' && sql[i + 1] === '/') {
          depth--;
          i += 2;
        } else i++;
      }
    } else if (c === "'") {
      const escapes = i > 0 && /[eE]/.test(sql[i - 1]!) && !isIdent(sql[i - 2]);
      i++;
      while (i < len) {
        if (escapes && sql[i] === '\\') i += 2;
        else if (sql[i] === "'" && sql[i + 1] === "'") i += 2;
        else if (sql[i] === "'") {
          i++;
          break;
        } else i++;
      }
    } else if (c === '"') {
      i++;
      while (i < len) {
        if (sql[i] === '"' && sql[i + 1] === '"') i += 2;
        else if (sql[i] === '"') {
          i++;
          break;
        } else i++;
      }
    } else if (c === '$' && !isIdent(sql[i - 1])) {
      const param = /^\$(\d+)/.exec(sql.slice(i, i + 12));
      const tag = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(sql.slice(i, i + 66));
      if (param) {
        pieces.push({ kind: 'code', text: sql.slice(start, i) });
        pieces.push({ kind: 'param', text: param[0], n: Number(param[1]) });
        i += param[0].length;
        start = i;
      } else if (tag) {
        const end = sql.indexOf(tag[0], i + tag[0].length);
        i = end < 0 ? len : end + tag[0].length;
      } else i++;
    } else {
      if (c === ';') onSemicolon?.(i);
      i++;
    }
  }
  pieces.push({ kind: 'code', text: sql.slice(start) });
  return pieces;
}

/** One statement of a Query message and how many characters of the message precede it. */
export interface Statement {
  readonly sql: string;
  readonly offset: number;
}

/** The statements of a simple Query message, in order, without their `;` (blank ones dropped). */
export function splitStatements(sql: string): Statement[] {
  const cuts: number[] = [];
  scan(sql, (at) => cuts.push(at));
  const out: Statement[] = [];
  let from = 0;
  for (const at of [...cuts, sql.length]) {
    const s = sql.slice(from, at);
    if (!isBlank(s)) {
      const lead = s.length - s.trimStart().length;
      // error positions count characters (code points), as PostgreSQL's do
      out.push({ sql: s.trim(), offset: [...sql.slice(0, from + lead)].length });
    }
    from = at + 1;
  }
  return out;
}

/** Whether `sql` holds nothing but whitespace and comments. */
export function isBlank(sql: string): boolean {
  return scan(sql)
    .map((p) => p.text)
    .join('')
    .replace(/--[^\n]*(\n|$)/g, '')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .trim() === '';
}

/** The highest `$n` placeholder of `sql` (0 when it has none). */
export function parameterCount(sql: string): number {
  let max = 0;
  for (const p of scan(sql)) if (p.kind === 'param' && p.n! > max) max = p.n!;
  return max;
}

/** `sql` with every `$n` replaced by `literals[n - 1]` (already rendered SQL literals). */
export function substituteParameters(sql: string, literals: readonly string[]): string {
  return scan(sql)
    .map((p) => (p.kind === 'param' ? ` ${literals[p.n! - 1] ?? 'NULL'} ` : p.text))
    .join('');
}
