/**
 * The size of a SQL text, measured by one linear scan before anything parses it, and the check
 * that refuses a text over `server.limits` (bytes, literals, tokens, nesting depth). Parsing cost
 * grows with the token count (faster than linearly for long AND/OR chains), so bounding the text
 * here bounds each plan; long texts are planned off the event loop (src/shoal/instance/planner-pool.ts).
 */
import { ShoalError } from '../errors.js';
import type { LimitsConfig } from '../config/limits.js';

export interface SqlMeasure {
  /** UTF-8 bytes. */
  readonly bytes: number;
  /** String and numeric literals. */
  readonly literals: number;
  /** Lexical tokens: words, literals, quoted names, operators and punctuation (comments excluded). */
  readonly tokens: number;
  /** Deepest nesting of parentheses and brackets. */
  readonly depth: number;
}

const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13);
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isWordStart = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c >= 128;
const isWord = (c: number): boolean => isWordStart(c) || isDigit(c) || c === 36;
const OPERATOR_CHARS = new Set('+-*/<>=~!@#%^&|`?:'.split('').map((ch) => ch.charCodeAt(0)));

/** Index just past a run of `quote`-delimited text starting at `i` (the quote doubled inside escapes it). */
function skipQuoted(sql: string, i: number, quote: number, backslash: boolean): number {
  let j = i + 1;
  while (j < sql.length) {
    const c = sql.charCodeAt(j);
    if (backslash && c === 92) {
      j += 2;
      continue;
    }
    if (c === quote) {
      if (sql.charCodeAt(j + 1) === quote) {
        j += 2;
        continue;
      }
      return j + 1;
    }
    j++;
  }
  return j;
}

/** Measure `sql` in one pass. An unterminated string or comment runs to the end (the parser reports it). */
export function measureSql(sql: string): SqlMeasure {
  let literals = 0;
  let tokens = 0;
  let depth = 0;
  let maxDepth = 0;
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql.charCodeAt(i);
    if (isSpace(c)) {
      i++;
    } else if (c === 45 && sql.charCodeAt(i + 1) === 45) {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
    } else if (c === 47 && sql.charCodeAt(i + 1) === 42) {
      // PostgreSQL block comments nest
      let level = 1;
      i += 2;
      while (i < n && level > 0) {
        if (sql.charCodeAt(i) === 47 && sql.charCodeAt(i + 1) === 42) {
          level++;
          i += 2;
        } else if (sql.charCodeAt(i) === 42 && sql.charCodeAt(i + 1) === 47) {
          level--;
          i += 2;
        } else i++;
      }
    } else if (c === 39) {
      const prev = i > 0 ? sql[i - 1]! : '';
      i = skipQuoted(sql, i, 39, prev === 'E' || prev === 'e');
      literals++;
      tokens++;
    } else if (c === 34) {
      i = skipQuoted(sql, i, 34, false);
      tokens++;
    } else if (c === 36 && !isDigit(sql.charCodeAt(i + 1))) {
      // $tag$ … $tag$ (a bare $n is a parameter, scanned as an operator-like token below)
      const close = sql.indexOf('$', i + 1);
      const tag = close < 0 ? '' : sql.slice(i, close + 1);
      if (close >= 0 && /^\$[A-Za-z_]*\$$/.test(tag)) {
        const end = sql.indexOf(tag, close + 1);
        i = end < 0 ? n : end + tag.length;
        literals++;
      } else i++;
      tokens++;
    } else if (isDigit(c) || (c === 46 && isDigit(sql.charCodeAt(i + 1)))) {
      i++;
      while (i < n) {
        const d = sql.charCodeAt(i);
        if (isDigit(d) || d === 46 || d === 95) i++;
        else if ((d === 101 || d === 69) && (isDigit(sql.charCodeAt(i + 1)) || ((sql.charCodeAt(i + 1) === 43 || sql.charCodeAt(i + 1) === 45) && isDigit(sql.charCodeAt(i + 2))))) i += 2;
        else break;
      }
      literals++;
      tokens++;
    } else if (isWordStart(c)) {
      i++;
      while (i < n && isWord(sql.charCodeAt(i))) i++;
      tokens++;
    } else if (c === 40 || c === 91) {
      depth++;
      if (depth > maxDepth) maxDepth = depth;
      i++;
      tokens++;
    } else if (c === 41 || c === 93) {
      depth = Math.max(0, depth - 1);
      i++;
      tokens++;
    } else if (OPERATOR_CHARS.has(c)) {
      i++;
      while (i < n && OPERATOR_CHARS.has(sql.charCodeAt(i)) && !(sql.charCodeAt(i) === 45 && sql.charCodeAt(i + 1) === 45) && !(sql.charCodeAt(i) === 47 && sql.charCodeAt(i + 1) === 42)) i++;
      tokens++;
    } else {
      i++;
      tokens++;
    }
  }
  return { bytes: Buffer.byteLength(sql, 'utf8'), literals, tokens, depth: maxDepth };
}

type SqlLimits = Pick<LimitsConfig, 'max_sql_bytes' | 'max_sql_literals' | 'max_sql_tokens' | 'max_sql_depth'>;

/**
 * Refuse `sql` when it is over any of the limits: SQL_TOO_LARGE (bytes, 413), SQL_TOO_MANY_LITERALS,
 * SQL_TOO_MANY_TOKENS or SQL_TOO_DEEP (400). The byte check comes first and costs no scan.
 */
export function checkSqlLimits(sql: string, limits: SqlLimits): SqlMeasure {
  // A UTF-8 byte is at most one UTF-16 unit, at least a third of one: skip the exact count when clearly over.
  if (sql.length > limits.max_sql_bytes) throw tooLarge(Buffer.byteLength(sql, 'utf8'), limits.max_sql_bytes);
  const m = measureSql(sql);
  if (m.bytes > limits.max_sql_bytes) throw tooLarge(m.bytes, limits.max_sql_bytes);
  if (m.literals > limits.max_sql_literals) {
    throw new ShoalError('SQL_TOO_MANY_LITERALS', `the SQL text has ${m.literals} literals; at most ${limits.max_sql_literals} are accepted`, {
      where: 'sql',
      hint: 'load long value lists into a table and join it, or ask the operator about server.limits.max_sql_literals',
    });
  }
  if (m.tokens > limits.max_sql_tokens) {
    throw new ShoalError('SQL_TOO_MANY_TOKENS', `the SQL text has ${m.tokens} tokens; at most ${limits.max_sql_tokens} are accepted`, {
      where: 'sql',
      hint: 'shorten the statement (long AND/OR chains, generated column lists), or ask the operator about server.limits.max_sql_tokens',
    });
  }
  if (m.depth > limits.max_sql_depth) {
    throw new ShoalError('SQL_TOO_DEEP', `the SQL text nests parentheses ${m.depth} deep; at most ${limits.max_sql_depth} levels are accepted`, {
      where: 'sql',
      hint: 'flatten nested subqueries and expressions (a WITH clause names a subquery once)',
    });
  }
  return m;
}

function tooLarge(bytes: number, max: number): ShoalError {
  return new ShoalError('SQL_TOO_LARGE', `the SQL text is ${bytes} bytes; at most ${max} are accepted`, {
    where: 'sql',
    hint: 'send a shorter statement, or ask the operator about server.limits.max_sql_bytes',
  });
}
