/**
 * The selection language of the listing lenses (`ls --where`, `search`): upstream's grammar, so a
 * selector written for one works on the other. A selector is whitespace-separated terms, all ANDed,
 * each optionally prefixed `not`; the word `and` is noise (there is no `or`):
 *
 *   stage=:blocked          a current stage is :blocked (`stage=blocked` too)
 *   fact:severity           fact `severity` is present
 *   fact:severity=:high     present and equal; keyword and string spellings of a name match
 *   actor=seb               some event was authored by seb
 *   disputed | conflicted   some fact is disputed / conflicted
 *   unsigned                some event carries no signature sidecar
 *   derived-from=<hash>     some attachment derives from <hash>
 *   ~text  (or a bare word) the ticket's haystack (title and facts, lower-cased) contains it
 *
 * `compileSelector` is pure and total: it returns a predicate over a pre-built row, or throws
 * `select/bad-term`. The row carries plain data only; whatever needs I/O (signatures) is gathered
 * by the caller, and only when the selector reads it (`readsSignatures`).
 */
import { emit } from '../edn/index.js';
import { Keyword, type EdnValue } from '../edn/value.js';
import { TikError } from '../errors.js';

/** What a selector reads of one ticket. */
export interface SelectRow {
  /** Current stages as keyword text (`":triaged"`). */
  readonly current: ReadonlySet<string>;
  /** Present facts: dotted path (`"customer.ack"`) → value. */
  readonly facts: ReadonlyMap<string, EdnValue>;
  readonly actors: ReadonlySet<string>;
  readonly derivedFrom: ReadonlySet<string>;
  /** Lower-cased searchable text: the title and the facts. */
  readonly haystack: string;
  readonly disputed: boolean;
  readonly conflicted: boolean;
  /** Only read when the selector says `readsSignatures`; otherwise may be left false. */
  readonly unsigned: boolean;
}

export interface Selector {
  readonly test: (row: SelectRow) => boolean;
  /** The selector has an `unsigned` term: the caller must fill `unsigned` from the store. */
  readonly readsSignatures: boolean;
  /**
   * Every term is `stage=` or `unsigned`: of the row, only `current` (and `unsigned`) is read, so a
   * caller may leave the other fields empty.
   */
  readonly readsOnlyStages: boolean;
}

/** The longest selector accepted (a command-line argument, bounded like every input). */
export const MAX_SELECTOR_LENGTH = 8192;

/**
 * The most terms a selector may have (`not x` is one, `and` none): each term may scan every
 * ticket's text, so without a bound 8 KiB of `not ~q` terms would cost ~1,300 scans per ticket.
 */
export const MAX_SELECTOR_TERMS = 64;

// Java's \s (upstream splits on it): ASCII whitespace only.
const WHITESPACE = /[ \t\n\v\f\r]+/;
const BARE_WORD = /^[^ \t\n\v\f\r:=~]+$/;

/** A name without its leading colon: `:high`, `"high"` and `high` spell one name. */
const bareName = (s: string): string => (s.startsWith(':') ? s.slice(1) : s);

/**
 * Clojure's `str` of a fact value: a string is itself, anything else its EDN text. All that
 * `fact:path=value` reads of a value, so a row may hold this text (a string) in its place.
 */
export const strOf = (v: EdnValue): string => (typeof v === 'string' ? v : v instanceof Keyword ? v.toString() : emit(v));

function badTerm(term: string, why: string): TikError {
  return new TikError('select/bad-term', `unknown selector term: ${term} (${why})`, {
    hint: 'terms: stage=:s  fact:path  fact:path=value  actor=name  derived-from=hash  disputed  conflicted  unsigned  ~text, each optionally after `not`',
  });
}

function atom(term: string): { test: (row: SelectRow) => boolean; signatures?: true; stages?: true } {
  if (term === 'disputed') return { test: (r) => r.disputed };
  if (term === 'conflicted') return { test: (r) => r.conflicted };
  if (term === 'unsigned') return { test: (r) => r.unsigned, signatures: true, stages: true };
  if (term.startsWith('~')) {
    const needle = term.slice(1).toLowerCase();
    return { test: (r) => r.haystack.includes(needle) };
  }
  if (term.startsWith('fact:')) {
    const body = term.slice(5);
    const eq = body.indexOf('=');
    const path = eq < 0 ? body : body.slice(0, eq);
    if (path === '' || path.split('.').some((p) => p === '')) throw badTerm(term, 'a fact path is dotted names, e.g. fact:resolution.ref');
    if (eq < 0) return { test: (r) => r.facts.has(path) };
    const want = bareName(body.slice(eq + 1));
    return {
      test: (r) => {
        const v = r.facts.get(path);
        return v !== undefined && bareName(strOf(v)) === want;
      },
    };
  }
  const eq = term.indexOf('=');
  if (eq >= 0) {
    const key = term.slice(0, eq);
    const value = term.slice(eq + 1);
    if (value === '') throw badTerm(term, `${key}= needs a value`);
    if (key === 'stage') {
      const want = bareName(value);
      return { test: (r) => [...r.current].some((s) => bareName(s) === want), stages: true };
    }
    if (key === 'actor') return { test: (r) => r.actors.has(value) };
    if (key === 'derived-from') return { test: (r) => r.derivedFrom.has(value) };
    throw badTerm(term, `${key === '' ? 'a term cannot start with =' : `no such key ${key}`}`);
  }
  if (BARE_WORD.test(term)) {
    const needle = term.toLowerCase();
    return { test: (r) => r.haystack.includes(needle) };
  }
  throw badTerm(term, 'not a term of the grammar');
}

/** Compile a selector; the empty selector matches every row. Throws `select/bad-term`. */
export function compileSelector(expr: string): Selector {
  if (expr.length > MAX_SELECTOR_LENGTH) {
    throw new TikError('select/bad-term', `a selector is at most ${MAX_SELECTOR_LENGTH} characters (got ${expr.length})`, {
      hint: 'shorten the selector',
    });
  }
  const trimmed = expr.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, '');
  const words = trimmed === '' ? [] : trimmed.split(WHITESPACE).filter((w) => w !== 'and');
  const tests: ((row: SelectRow) => boolean)[] = [];
  let readsSignatures = false;
  let readsOnlyStages = true;
  for (let i = 0; i < words.length; i++) {
    const negated = words[i] === 'not';
    if (negated) {
      i++;
      if (i >= words.length) throw new TikError('select/bad-term', 'the selector ends with `not`', { hint: 'put a term after `not`, e.g. `not disputed`' });
    }
    const a = atom(words[i]!);
    if (a.signatures) readsSignatures = true;
    if (!a.stages) readsOnlyStages = false;
    tests.push(negated ? (r) => !a.test(r) : a.test);
  }
  if (tests.length > MAX_SELECTOR_TERMS) {
    throw new TikError('select/bad-term', `a selector has at most ${MAX_SELECTOR_TERMS} terms (got ${tests.length})`, { hint: 'use fewer terms' });
  }
  return { test: (row) => tests.every((t) => t(row)), readsSignatures, readsOnlyStages };
}
