/**
 * The certified regex subset for `mask_type: regex`, and its rendering per target.
 *
 * PostgreSQL (ARE), DuckDB (RE2), MariaDB (PCRE2) and MySQL 8 (ICU) disagree on `.` and newline,
 * on whether `$` matches before a final newline, on `\d`/`\w`/`\s` over unicode, on alternation
 * (POSIX longest vs Perl first), lazy quantifiers and back-references. A mask pattern is therefore
 * parsed here into a small subset whose meaning we fix ourselves, and rendered per target with
 * constructs measured to agree on PostgreSQL 15, DuckDB and MariaDB 10.11 (see the mask parity
 * integration test):
 *
 * - the pattern describes the whole value: it starts with `^` and ends with `$` (rendered `\A` and
 *   `\Z` / `\z`, never the line-sensitive forms);
 * - `.` is any character, newline included (PostgreSQL's meaning), rendered `(?:[^\n]|\n)`;
 * - literal characters, `\` + ASCII punctuation, bracket classes of characters and ranges
 *   (`[a-z0-9._\-]`, `[^@]`), compared by code point and case-sensitively;
 * - greedy quantifiers `* + ? {n} {n,} {n,m}` (n, m ≤ 255) on a single-character atom;
 * - up to 9 capture groups, not nested and not quantified;
 * - the pattern does not match the empty string (an empty value is masked entirely).
 *
 * Everything else is refused at config load with the key path: alternation, lazy or possessive
 * quantifiers, class shorthands, word boundaries, back-references, lookaround, inline flags,
 * POSIX classes, control characters.
 */

/** A single-character atom. */
export type MaskAtom =
  | { readonly kind: 'any' }
  | { readonly kind: 'char'; readonly char: string }
  | { readonly kind: 'class'; readonly negated: boolean; readonly members: readonly (readonly [from: string, to: string])[] };

export interface MaskQuantified {
  readonly atom: MaskAtom;
  /** Greedy repetition bounds; `max` undefined is unbounded. */
  readonly min: number;
  readonly max: number | undefined;
}

export type MaskItem = { readonly kind: 'atom'; readonly q: MaskQuantified } | { readonly kind: 'group'; readonly items: readonly MaskQuantified[] };

/** A parsed mask pattern: a whole-value match of a sequence of items. */
export interface MaskRegex {
  readonly items: readonly MaskItem[];
  readonly groups: number;
}

/** Where a mask regex runs: the regex engines whose behaviour the rendering was measured on. */
export type MaskRegexFlavour = 'postgres' | 'duckdb' | 'mariadb' | 'trino';

export type MaskRegexParse = { readonly ok: true; readonly regex: MaskRegex } | { readonly ok: false; readonly reason: string; readonly hint: string };

const MAX_PATTERN = 1000;
const MAX_REPEAT = 255;
const MAX_GROUPS = 9;
const PUNCT = /^[!-/:-@[-`{-~]$/;
const META = new Set([...'.^$*+?()[]{}|\\']);
// control characters (and the line separators) have no portable literal form
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

/** Parse `pattern` into the certified subset, or say what is not certified and how to fix it. */
export function parseMaskPattern(pattern: string): MaskRegexParse {
  const chars = [...pattern];
  let i = 0;
  const fail = (reason: string, hint = 'use literal characters, ., [classes], greedy * + ? {n,m} and (groups) between ^ and $'): MaskRegexParse => ({ ok: false, reason, hint });
  if (chars.length > MAX_PATTERN) return fail(`the pattern is longer than ${MAX_PATTERN} characters`, 'shorten the pattern');
  if (CONTROL.test(pattern)) return fail('the pattern contains a control character', 'match any character with . instead');
  if (chars[0] !== '^' || chars[chars.length - 1] !== '$' || (chars.length >= 2 && chars[chars.length - 2] === '\\' && !escapedBackslashBefore(chars, chars.length - 2))) {
    return fail('the pattern must describe the whole value: start with ^ and end with $', 'e.g. "^(.{2}).*(@.*)$"; a value the pattern does not match is masked entirely');
  }
  if (chars.length < 2) return fail('the pattern must describe the whole value: start with ^ and end with $', 'e.g. "^(.{2}).*(@.*)$"');
  const end = chars.length - 1;
  i = 1;

  const atom = (): MaskAtom | MaskRegexParse => {
    const c = chars[i]!;
    if (c === '.') {
      i++;
      return { kind: 'any' };
    }
    if (c === '\\') {
      const n = chars[i + 1];
      if (n === undefined || i + 1 >= end) return fail('the pattern ends with a lone backslash');
      if (!PUNCT.test(n)) return fail(`\\${n} is not certified (class shorthands, boundaries, back-references and escapes differ between PostgreSQL, DuckDB and MySQL)`, 'write a bracket class such as [0-9] or [a-zA-Z_] instead');
      i += 2;
      return { kind: 'char', char: n };
    }
    if (c === '[') return klass();
    if (c === '|') return fail('alternation (|) is not certified (PostgreSQL takes the longest alternative, DuckDB and MySQL the first)', 'use a bracket class, or split the column');
    if (c === '^' || c === '$') return fail(`${c} may appear only at the very start (^) or end ($) of the pattern`, 'escape it (\\^ \\$) to match the character');
    if (META.has(c)) return fail(`unexpected '${c}' at character ${i + 1}`, `escape it (\\${c}) to match the character`);
    i++;
    return { kind: 'char', char: c };
  };

  const klass = (): MaskAtom | MaskRegexParse => {
    i++;
    let negated = false;
    if (chars[i] === '^') {
      negated = true;
      i++;
    }
    const members: [string, string][] = [];
    const one = (): string | MaskRegexParse => {
      const c = chars[i];
      if (c === undefined || i >= end) return fail('an unterminated [class]');
      if (c === '\\') {
        const n = chars[i + 1];
        if (n === undefined || !PUNCT.test(n)) return fail(`\\${n ?? ''} inside a [class] is not certified`, 'write the characters or a range such as 0-9');
        i += 2;
        return n;
      }
      if (c === '[') return fail('[ inside a [class] (POSIX classes, nested sets) is not certified', 'escape it as \\[ or list the characters');
      if (c === '-') return fail('a - that is not part of a range inside a [class] is not certified', 'escape it as \\-');
      i++;
      return c;
    };
    while (chars[i] !== ']') {
      if (i >= end) return fail('an unterminated [class]');
      const from = one();
      if (typeof from !== 'string') return from;
      let to = from;
      if (chars[i] === '-' && chars[i + 1] !== ']') {
        i++;
        const t = one();
        if (typeof t !== 'string') return t;
        if (t.codePointAt(0)! < from.codePointAt(0)!) return fail(`the range ${from}-${t} is reversed`);
        to = t;
      }
      members.push([from, to]);
    }
    i++;
    if (members.length === 0) return fail('an empty [class]');
    return { kind: 'class', negated, members };
  };

  const quantified = (): MaskQuantified | MaskRegexParse => {
    const a = atom();
    if ('ok' in a) return a;
    let min = 1;
    let max: number | undefined = 1;
    const q = chars[i];
    if (q === '*' || q === '+' || q === '?') {
      i++;
      [min, max] = q === '*' ? [0, undefined] : q === '+' ? [1, undefined] : [0, 1];
    } else if (q === '{') {
      const m = /^\{(\d{1,3})(,(\d{0,3}))?\}/.exec(chars.slice(i, end).join(''));
      if (!m) return fail(`a malformed {n,m} at character ${i + 1}`, 'write {n}, {n,} or {n,m}');
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? undefined : Number(m[3]);
      if (min > MAX_REPEAT || (max !== undefined && (max > MAX_REPEAT || max < min))) return fail(`{${m[1]}${m[2] ?? ''}} is outside 0..${MAX_REPEAT} or reversed`);
      i += m[0].length;
    }
    const after = chars[i];
    if (i < end && (after === '?' || after === '+' || after === '*' || after === '{')) {
      return fail('lazy, possessive or stacked quantifiers are not certified (their semantics differ between PostgreSQL and the others)', 'use one greedy quantifier per atom');
    }
    return { atom: a, min, max };
  };

  const items: MaskItem[] = [];
  let groups = 0;
  while (i < end) {
    if (chars[i] === '(') {
      if (chars[i + 1] === '?') return fail('(? groups (non-capturing, lookaround, inline flags) are not certified', 'use a plain capture group (…)');
      i++;
      const inner: MaskQuantified[] = [];
      while (chars[i] !== ')') {
        if (i >= end) return fail('an unterminated (group)');
        if (chars[i] === '(') return fail('nested groups are not certified', 'flatten the groups');
        const q = quantified();
        if ('ok' in q) return q;
        inner.push(q);
      }
      i++;
      const after = chars[i];
      if (i < end && (after === '*' || after === '+' || after === '?' || after === '{')) return fail('a quantified group is not certified', 'quantify the characters inside the group instead');
      if (++groups > MAX_GROUPS) return fail(`more than ${MAX_GROUPS} groups`);
      items.push({ kind: 'group', items: inner });
      continue;
    }
    if (chars[i] === ')') return fail('an unmatched )', 'escape it as \\)');
    const q = quantified();
    if ('ok' in q) return q;
    items.push({ kind: 'atom', q });
  }
  // MariaDB's REGEXP_REPLACE leaves an empty value untouched even when the pattern matches it
  const matchesEmpty = items.every((it) => (it.kind === 'atom' ? it.q.min === 0 : it.items.every((q) => q.min === 0)));
  if (matchesEmpty) return fail('the pattern matches the empty string', 'require at least one character (e.g. .+); an empty value is then masked entirely');
  return { ok: true, regex: { items, groups } };
}

/** Whether chars[at] (a backslash) is itself escaped by an odd run of backslashes before it. */
function escapedBackslashBefore(chars: readonly string[], at: number): boolean {
  let n = 0;
  for (let k = at - 1; k >= 0 && chars[k] === '\\'; k--) n++;
  return n % 2 === 1;
}

/**
 * Check a `$n`-style replacement against a parsed pattern: literal text plus `$1`…`$9` naming an
 * existing group. A backslash or a `$` not followed by a group number is refused (their meaning
 * in a replacement differs per target), and so is a reference to a missing group (DuckDB returns
 * the raw value for one).
 */
export function checkMaskReplacement(replace: string, regex: MaskRegex): { readonly ok: true } | { readonly ok: false; readonly reason: string; readonly hint: string } {
  if (CONTROL.test(replace)) return { ok: false, reason: 'the replacement contains a control character', hint: 'use printable characters' };
  if (replace.includes('\\')) return { ok: false, reason: 'a backslash in the replacement is not certified', hint: 'write group references as $1 … $9' };
  for (const m of replace.matchAll(/\$(\d?)/g)) {
    if (m[1] === '') return { ok: false, reason: 'a $ in the replacement must name a group ($1 … $9)', hint: 'a literal $ is not supported in a mask replacement' };
    const n = Number(m[1]);
    if (n < 1 || n > regex.groups) return { ok: false, reason: `$${m[1]} names no group of the pattern (it has ${regex.groups})`, hint: 'reference only the pattern\'s (groups), counted from $1' };
  }
  return { ok: true };
}

const ANY = '(?:[^\\n]|\\n)';

function renderChar(c: string): string {
  return PUNCT.test(c) ? `\\${c}` : c;
}

function renderAtom(a: MaskAtom): string {
  switch (a.kind) {
    case 'any': return ANY;
    case 'char': return renderChar(a.char);
    case 'class': return `[${a.negated ? '^' : ''}${a.members.map(([f, t]) => (f === t ? renderChar(f) : `${renderChar(f)}-${renderChar(t)}`)).join('')}]`;
  }
}

function renderQuantified(q: MaskQuantified): string {
  const a = renderAtom(q.atom);
  if (q.min === 1 && q.max === 1) return a;
  if (q.min === 0 && q.max === undefined) return `${a}*`;
  if (q.min === 1 && q.max === undefined) return `${a}+`;
  if (q.min === 0 && q.max === 1) return `${a}?`;
  if (q.max === undefined) return `${a}{${q.min},}`;
  return q.min === q.max ? `${a}{${q.min}}` : `${a}{${q.min},${q.max}}`;
}

/**
 * The pattern text for one target: anchored at the start and end of the whole value (`\A`, and
 * PostgreSQL's `\Z` / the others' `\z`, which never match before a final newline), case-sensitive
 * and free of the server's default flags on MariaDB (`(?-imsxU)`, whatever the collation says).
 */
export function renderMaskPattern(regex: MaskRegex, flavour: MaskRegexFlavour): string {
  const body = regex.items.map((it) => (it.kind === 'atom' ? renderQuantified(it.q) : `(${it.items.map(renderQuantified).join('')})`)).join('');
  switch (flavour) {
    case 'postgres': return `\\A${body}\\Z`;
    case 'duckdb': return `\\A${body}\\z`;
    case 'mariadb': return `(?-imsxU)\\A${body}\\z`;
    // Trino's default regex library (Joni) reads \A and \z as Perl does
    case 'trino': return `\\A${body}\\z`;
  }
}

/** The replacement for one target: `$n` → `\n` (PostgreSQL, DuckDB and MariaDB all read `\n`). */
export function renderMaskReplacement(replace: string): string {
  return replace.replace(/\$(\d)/g, '\\$1');
}
