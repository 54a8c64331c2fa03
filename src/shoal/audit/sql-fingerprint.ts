/**
 * The SQL fingerprint an audit record keeps instead of the SQL: the SHA-256 of the statement with
 * every literal replaced by `?`, comments dropped, whitespace collapsed and unquoted words
 * lower-cased. Queries of one shape share a fingerprint whatever values they carry, and no value
 * (a customer id, an e-mail address in a WHERE) is stored or recoverable by guessing it.
 *
 * A lexical pass, not a parse: it must also fingerprint SQL that does not parse. An unterminated
 * string or comment swallows the rest of the text, so nothing after an open quote is kept.
 */
import { createHash } from 'node:crypto';

const IDENT_START = /[A-Za-z_\u0080-\uffff]/;
const IDENT_PART = /[A-Za-z0-9_$\u0080-\uffff]/;
const DIGIT = /[0-9]/;
/** Sticky (matched at lastIndex): no slicing of the text per literal, so a long statement stays linear. */
const NUMBER = /0[xX][0-9a-fA-F_]+|[0-9_]*\.?[0-9_]+(?:[eE][+-]?[0-9]+)?\.?/y;

/** The normalised text that is hashed (exported for tests; never stored). */
export function normaliseSql(sql: string): string {
  const out: string[] = [];
  const n = sql.length;
  let i = 0;
  const literal = (): void => void out.push('?');
  while (i < n) {
    const c = sql[i]!;
    const next = sql[i + 1] ?? '';
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '-' && next === '-') {
      const eol = sql.indexOf('\n', i);
      i = eol < 0 ? n : eol + 1;
      continue;
    }
    if (c === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      continue;
    }
    // string literals, with the prefixes E'', N'', X'', B'', U&''
    const prefixed = /^(?:[eEnNxXbB]|[uU]&)'/.exec(sql.slice(i, i + 3));
    if (c === "'" || prefixed) {
      const backslash = prefixed !== null && (c === 'e' || c === 'E');
      i += prefixed ? prefixed[0].length : 1;
      while (i < n) {
        const ch = sql[i]!;
        if (backslash && ch === '\\') i += 2;
        else if (ch === "'" && sql[i + 1] === "'") i += 2;
        else if (ch === "'") break;
        else i++;
      }
      i++;
      literal();
      continue;
    }
    // dollar-quoted strings: $$…$$ or $tag$…$tag$
    if (c === '$') {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 66));
      if (tag) {
        const end = sql.indexOf(tag[0], i + tag[0].length);
        i = end < 0 ? n : end + tag[0].length;
        literal();
        continue;
      }
      // $1-style parameters
      if (DIGIT.test(next)) {
        i++;
        while (i < n && DIGIT.test(sql[i]!)) i++;
        literal();
        continue;
      }
    }
    if (c === '"' || c === '`') {
      // a quoted identifier names an object, not a value: kept as written
      let j = i + 1;
      while (j < n && !(sql[j] === c && sql[j + 1] !== c)) j += sql[j] === c ? 2 : 1;
      out.push(sql.slice(i, Math.min(j + 1, n)));
      i = j + 1;
      continue;
    }
    if (DIGIT.test(c) || (c === '.' && DIGIT.test(next))) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(sql);
      i += Math.max(1, m?.[0].length ?? 1);
      literal();
      continue;
    }
    if (IDENT_START.test(c)) {
      let j = i + 1;
      while (j < n && IDENT_PART.test(sql[j]!)) j++;
      out.push(sql.slice(i, j).toLowerCase());
      i = j;
      continue;
    }
    out.push(c);
    i++;
  }
  // `IN (1, 2, 3)` and `IN (4)` are one shape
  return out.join(' ').replace(/\?(?: , \?)+/g, '?');
}

/** `sha256:<hex>` of the normalised SQL. */
export function sqlFingerprint(sql: string): string {
  return `sha256:${createHash('sha256').update(normaliseSql(sql)).digest('hex')}`;
}
