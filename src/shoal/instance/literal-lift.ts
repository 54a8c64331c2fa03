/**
 * Literal lifting for the plan cache: the literals of a SQL text that may become parameters, so
 * that `… WHERE id = 5` and `… WHERE id = 6` share one plan.
 *
 * Only literals whose value governance and routing never inspect are lifted, and conservatively
 * by their place in the text: the right operand of a comparison (`= 5`, `>= 'x'`) or an item of an
 * `IN (…)` list. Anything else keeps its literal in the key: LIMIT/OFFSET/FETCH counts (they set
 * the row cap), ordinals (`ORDER BY 1`), function arguments (`date_trunc('month', …)`, a
 * `current_setting` name), typed literals (`DATE '…'`), decimals, signed numbers, and strings with
 * anything but plain characters (quotes, backslashes, `$`: escape and regex semantics differ
 * between dialects). A text with a comment, a dollar quote or an unterminated token lifts nothing.
 * plan-cache.ts verifies each lifted shape against a real plan before it serves it.
 */

/** The class of a lifted literal: it fixes the literal's SQL type (PostgreSQL types `5` as int4, `5000000000` as int8). */
export type LiteralClass = 'int4' | 'int8' | 'string';

export interface LiftedLiteral {
  readonly cls: LiteralClass;
  /** Digits of an integer, or the content of a string (no quotes: plain characters only). */
  readonly value: string;
  /** Where the literal's token is in the text (for a string, including its quotes). */
  readonly start: number;
  readonly end: number;
}

export interface LiftedText {
  /** The text with every lifted literal replaced by a placeholder naming its class: the cache key's text. */
  readonly shape: string;
  readonly literals: readonly LiftedLiteral[];
}

const COMPARISONS = new Set(['=', '<>', '!=', '<', '>', '<=', '>=']);
const PLAIN_STRING = /^[A-Za-z0-9 _.@:-]*$/;
const INT4_MAX = 2147483647n;
const INT8_MAX = 9223372036854775807n;

interface Token {
  readonly kind: 'word' | 'number' | 'string' | 'quoted' | 'op';
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
/** `\s` as a regex reads it; ASCII by code (this runs per character of every request's text). */
const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13) || (c >= 128 && /\s/.test(String.fromCharCode(c)));
const TWO_CHAR_OPS = new Set(['<>', '!=', '<=', '>=', '::', '||']);

/** The text's tokens, or undefined when it has anything this small lexer does not model. */
function tokens(sql: string): Token[] | undefined {
  const out: Token[] = [];
  const n = sql.length;
  let i = 0;
  while (i < n) {
    const c = sql.charCodeAt(i);
    if (isSpace(c)) { i++; continue; }
    const d = sql.charCodeAt(i + 1);
    // `--`, `/*`, `$`, a backquote
    if ((c === 45 && d === 45) || (c === 47 && d === 42) || c === 36 || c === 96) return undefined;
    const start = i;
    if (c === 39 || c === 34) {
      i = sql.indexOf(c === 39 ? "'" : '"', i + 1);
      if (i < 0) return undefined;
      i++;
      if (c === 34) {
        out.push({ kind: 'quoted', text: sql.slice(start, i), start, end: i });
        continue;
      }
      // a doubled quote continues the string: not plain, keep it (and the rest) as it is
      if (sql.charCodeAt(i) === 39) return undefined;
      out.push({ kind: 'string', text: sql.slice(start, i), start, end: i });
      continue;
    }
    if (isDigit(c)) {
      while (i < n && (isLetter(sql.charCodeAt(i)) || isDigit(sql.charCodeAt(i)) || sql.charCodeAt(i) === 46)) i++;
      out.push({ kind: 'number', text: sql.slice(start, i), start, end: i });
      continue;
    }
    if (isLetter(c)) {
      while (i < n && (isLetter(sql.charCodeAt(i)) || isDigit(sql.charCodeAt(i)))) i++;
      out.push({ kind: 'word', text: sql.slice(start, i), start, end: i });
      continue;
    }
    const two = sql.slice(i, i + 2);
    if (TWO_CHAR_OPS.has(two)) {
      i += 2;
      out.push({ kind: 'op', text: two, start, end: i });
      continue;
    }
    i++;
    out.push({ kind: 'op', text: sql[start]!, start, end: i });
  }
  return out;
}

/** The liftable literals of `sql` and its shape; undefined when nothing can be lifted. */
export function liftLiterals(sql: string): LiftedText | undefined {
  const toks = tokens(sql);
  if (!toks) return undefined;
  const literals: LiftedLiteral[] = [];
  // per open parenthesis: whether it opened an IN list
  const parens: boolean[] = [];
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k]!;
    const prev = toks[k - 1];
    const next = toks[k + 1];
    if (t.kind === 'op' && t.text === '(') {
      const first = toks[k + 1];
      parens.push(prev?.kind === 'word' && prev.text.toUpperCase() === 'IN' && (first?.kind === 'number' || first?.kind === 'string'));
      continue;
    }
    if (t.kind === 'op' && t.text === ')') { parens.pop(); continue; }
    if (t.kind !== 'number' && t.kind !== 'string') continue;
    if (!prev || prev.kind !== 'op') continue;
    const inList = parens.length > 0 && parens[parens.length - 1] === true && (prev.text === '(' || prev.text === ',');
    if (!COMPARISONS.has(prev.text) && !inList) continue;
    // `= 5 .x`, `= 'a'(`: not a plain operand
    if (next && ((next.kind === 'op' && (next.text === '(' || next.text === '.')) || next.kind === 'string')) continue;
    // a prefixed string (E'…', N'…', X'…') starts right after a word: prev is that word, never an operator
    if (t.kind === 'string') {
      const content = t.text.slice(1, -1);
      if (!PLAIN_STRING.test(content)) continue;
      literals.push({ cls: 'string', value: content, start: t.start, end: t.end });
      continue;
    }
    if (!/^(0|[1-9][0-9]*)$/.test(t.text)) continue;
    const n = BigInt(t.text);
    if (n > INT8_MAX) continue;
    literals.push({ cls: n <= INT4_MAX ? 'int4' : 'int8', value: t.text, start: t.start, end: t.end });
  }
  if (literals.length === 0) return undefined;
  let shape = '';
  let at = 0;
  for (const l of literals) {
    shape += `${sql.slice(at, l.start)}\u0000${l.cls}\u0000`;
    at = l.end;
  }
  return { shape: shape + sql.slice(at), literals };
}

/** The text with literal `i` replaced by `values[i]` (integers as digits, strings quoted). */
export function withLiterals(sql: string, lifted: LiftedText, values: readonly string[]): string {
  let out = '';
  let at = 0;
  lifted.literals.forEach((l, i) => {
    out += sql.slice(at, l.start) + (l.cls === 'string' ? `'${values[i]}'` : values[i]);
    at = l.end;
  });
  return out + sql.slice(at);
}
