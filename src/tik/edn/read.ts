/**
 * The strict EDN reader (tik-model.md §1.6): exactly one top-level form, with `;` comments, `#_`
 * discards and commas as whitespace around and inside it, and only the `#inst` and `#uuid` tags.
 *
 * Everything else is `TikError('edn/malformed')` naming the source and the line and column of the
 * offending character, never a partial value: characters (`\a`), other tags and dispatch forms
 * (`#foo`, `##Inf`, `#"re"`, `#:ns{}`), metadata (`^`), floats, ratios, `N`/`M` suffixes, octal and
 * hex integers, integers outside the signed 64-bit range, unsupported string escapes (octal
 * escapes included), lone surrogates, unbalanced brackets, a map with an odd number of forms,
 * duplicate map keys or set members (by Clojure `=`), nesting deeper than 512, and a second
 * top-level form.
 *
 * `#inst` is `Instant.parse` truncated to milliseconds (see `instant-text.ts`); `#uuid` takes
 * strict 8-4-4-4-12 hex in any case and keeps it in lower case.
 *
 * Symbols and keywords follow Clojure's EDN reader (so `:1` or `a/b/c` are read as Clojure reads
 * them), because the canonical bytes of upstream's events use Clojure's printed text. Whitespace
 * is Java's `Character.isWhitespace` plus the comma.
 *
 * The scanner is hand-written and single-pass; line and column are computed only on error.
 * Columns count Unicode code points from 1.
 */
import { TikError } from '../errors.js';
import { emit, MAX_DEPTH } from './emit.js';
import { HashCons } from './hash-cons.js';
import { isCollection, scalarText, withReadScope, type Collection } from './structure.js';
import { parseInstant } from './instant-text.js';
import { TextKeys, type TextKey } from './text-keys.js';
import { EdnList, EdnMap, EdnSet, EdnSymbol, Instant, Keyword, Uuid, type EdnValue, type EntryId } from './value.js';

const MIN_I64 = -(2n ** 63n);
const MAX_I64 = 2n ** 63n - 1n;
const INTEGER = /^[+-]?(?:0|[1-9][0-9]*)$/;
// Clojure's symbolPat: [:]?([\D&&[^/]].*/)?(/|[\D&&[^/]][^/]*)
const SYMBOL = /^(:)?([^0-9/].*\/)?(\/|[^0-9/][^/]*)$/;
const UUID_TEXT = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const HINT = 'tik reads a strict subset of EDN: nil, booleans, integers, strings, keywords, symbols, #inst, #uuid, (), [], {}, #{}';

/** Java `Character.isWhitespace`, plus the comma. */
function isWhitespace(c: number): boolean {
  if (c < 0x80) return c === 32 || c === 44 || (c >= 9 && c <= 13) || (c >= 28 && c <= 31);
  return (
    c === 0x1680 || (c >= 0x2000 && c <= 0x2006) || (c >= 0x2008 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x205f || c === 0x3000
  );
}

/** ASCII characters that end a token: whitespace, comma and Clojure EDN's terminating macros. */
const ASCII_END = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_END[c] = endsTokenSlow(c) ? 1 : 0;

/** Characters that end a token: whitespace and Clojure EDN's terminating macro characters. */
function endsToken(c: number): boolean {
  return c < 128 ? ASCII_END[c] === 1 : isWhitespace(c);
}

function endsTokenSlow(c: number): boolean {
  switch (c) {
    case 34: // "
    case 59: // ;
    case 94: // ^
    case 40: // (
    case 41: // )
    case 91: // [
    case 93: // ]
    case 123: // {
    case 125: // }
    case 92: // \
      return true;
    default:
      return isWhitespace(c);
  }
}

/**
 * Token text → the keyword or symbol it reads as (a token's validity never changes): a bounded
 * cache of short tokens only, so hostile input cannot grow it (the intern tables are weak).
 */
const names = new Map<string, Keyword | EdnSymbol>();
const NAMES_MAX = 10_000;
const NAME_TOKEN_MAX = 64;

const EOF = Symbol('eof');
const CLOSED = Symbol('closed');

/**
 * The keys (or members) of one collection literal so far, to refuse a repeat under Clojure `=`.
 * A scalar is identified by its canonical text (a long one by its key in `keys`, which the
 * collection then keeps); a collection by its representative under `=` in this read
 * (`HashCons.eqRep`: exact, no member text is written). A scalar is never `=` to a collection, so
 * the two never meet. `texts` collects each admitted member's text (undefined for a collection),
 * in order, for the collection's structure.
 */
class Duplicates {
  readonly keys = new TextKeys();
  private readonly scalars = new Set<TextKey>();
  private reps: Set<Collection> | undefined;
  readonly texts: (string | undefined)[] = [];

  constructor(private readonly hc: HashCons) {}

  /** The member's id for its collection, or undefined if it repeats an earlier one. */
  admit(v: EdnValue): EntryId | undefined {
    if (!isCollection(v)) {
      const t = scalarText(v);
      const k = this.keys.key(t);
      if (this.scalars.has(k)) return undefined;
      this.scalars.add(k);
      this.texts.push(t);
      return k;
    }
    const r = this.hc.eqRep(v);
    if ((this.reps ??= new Set()).has(r)) return undefined;
    this.reps.add(r);
    this.texts.push(undefined);
    return v;
  }
}

class Reader {
  pos = 0;
  depth = 0;
  prefixes = 0;
  /** Start offset of the form most recently returned by `readItem`. */
  itemStart = 0;
  /** Equal collections of this read become one object (exact canonical order and `=`). */
  readonly hc = new HashCons();
  constructor(
    readonly text: string,
    readonly source: string | undefined,
  ) {}

  fail(message: string, at: number = this.pos, hint: string = HINT): never {
    throw new TikError('edn/malformed', message, { where: this.source, position: positionOf(this.text, at), hint });
  }

  /** Skip whitespace, commas and `;` comments (not `#_`, which needs a form). */
  skipSpace(): void {
    const t = this.text;
    let p = this.pos;
    for (;;) {
      const c = t.charCodeAt(p);
      if (c === 59) {
        p++;
        for (;;) {
          const d = t.charCodeAt(p);
          if (Number.isNaN(d) || d === 10 || d === 13) break;
          p++;
        }
      } else if (!Number.isNaN(c) && isWhitespace(c)) {
        p++;
      } else {
        break;
      }
    }
    this.pos = p;
  }

  /** The next form, or `close` consumed (→ CLOSED), or end of input when `close` is -1 (→ EOF). */
  readItem(close: number, opener: number): EdnValue | typeof CLOSED | typeof EOF {
    for (;;) {
      this.skipSpace();
      const c = this.text.charCodeAt(this.pos);
      if (Number.isNaN(c)) {
        if (close === -1) return EOF;
        this.fail(`unexpected end of input: the '${String.fromCharCode(this.text.charCodeAt(opener))}' opened here is never closed`, opener);
      }
      if (c === close) {
        this.pos++;
        return CLOSED;
      }
      if (close !== -1 && (c === 41 || c === 93 || c === 125)) {
        const o = this.text.charCodeAt(opener);
        const p = positionOf(this.text, opener);
        this.fail(
          `mismatched '${String.fromCharCode(c)}': the '${o === 35 ? '#{' : String.fromCharCode(o)}' opened at line ${p.line}, column ${p.column} needs '${String.fromCharCode(close)}'`,
        );
      }
      if (c === 35 && this.text.charCodeAt(this.pos + 1) === 95) {
        this.discard();
        continue;
      }
      const start = this.pos;
      const v = this.readForm();
      this.itemStart = start;
      return v;
    }
  }

  /** One form, after any whitespace, comments and discards. */
  readForm(): EdnValue {
    const t = this.text;
    for (;;) {
      this.skipSpace();
      const start = this.pos;
      const c = t.charCodeAt(start);
      if (Number.isNaN(c)) this.fail('unexpected end of input: a form was expected');
      switch (c) {
        case 34:
          return this.readString();
        case 40:
          return this.hc.intern(new EdnList(this.readSeq(41)));
        case 91:
          return this.hc.intern(Object.freeze(this.readSeq(93)));
        case 123:
          return this.readMap();
        case 41:
        case 93:
        case 125:
          this.fail(`unexpected '${String.fromCharCode(c)}': there is no open bracket for it here`);
          break;
        case 35: {
          const d = t.charCodeAt(start + 1);
          if (d === 95) {
            this.discard();
            continue;
          }
          if (d === 123) {
            this.pos++;
            return this.readSet();
          }
          return this.readTagged();
        }
        case 92:
          this.fail('character literals (\\c) are not supported; use a string');
          break;
        case 94:
          this.fail('metadata (^) is not supported');
          break;
        default:
          return this.readToken();
      }
    }
  }

  /** `#_ form`: read and drop. Nested discards and tags count toward the depth limit. */
  discard(): void {
    this.enterPrefix();
    this.pos += 2;
    this.readForm();
    this.prefixes--;
  }

  /**
   * Discards and tags nest by recursion too (`#_#_#_…`, `#inst #inst …`), but are not collections:
   * they have their own limit so they can neither overflow the stack nor count as nesting.
   */
  enterPrefix(): void {
    if (++this.prefixes > MAX_DEPTH) this.fail(`more than ${MAX_DEPTH} nested #_ discards or tags`);
  }

  enter(): void {
    if (++this.depth > MAX_DEPTH) {
      this.fail(`collections are nested more than ${MAX_DEPTH} deep`, this.pos, `canonical EDN allows at most ${MAX_DEPTH} levels of nesting`);
    }
  }

  readSeq(close: number): EdnValue[] {
    const opener = this.pos;
    this.enter();
    this.pos++;
    const items: EdnValue[] = [];
    for (;;) {
      const v = this.readItem(close, opener);
      if (v === CLOSED) break;
      items.push(v as EdnValue);
    }
    this.depth--;
    return items;
  }

  readMap(): EdnMap {
    const opener = this.pos;
    this.enter();
    this.pos++;
    // key, value, key offset, … (flat: no tuple per entry)
    const forms: (EdnValue | number)[] = [];
    for (;;) {
      const k = this.readItem(125, opener);
      if (k === CLOSED) break;
      const keyAt = this.itemStart;
      const v = this.readItem(125, opener);
      if (v === CLOSED) this.fail(`a map needs an even number of forms: the key ${emit(k as EdnValue)} has no value`, this.pos - 1);
      forms.push(k as EdnValue, v as EdnValue, keyAt);
    }
    this.depth--;
    const keyed = new Map<EntryId, readonly [EdnValue, EdnValue]>();
    const dups = new Duplicates(this.hc);
    const texts: (string | undefined)[] = [];
    for (let i = 0; i < forms.length; i += 3) {
      const k = forms[i] as EdnValue;
      const id = dups.admit(k);
      if (id === undefined) this.fail(`duplicate map key ${emit(k)}`, forms[i + 2] as number, 'EDN forbids repeated keys in a map literal; keep one');
      keyed.set(id, Object.freeze([k, forms[i + 1] as EdnValue] as const));
      texts.push(dups.texts[dups.texts.length - 1], undefined);
    }
    return this.hc.intern(EdnMap.adopt(keyed, dups.keys), texts);
  }

  readSet(): EdnSet {
    const opener = this.pos - 1;
    this.enter();
    this.pos++;
    // member, offset, … (flat: no tuple per member)
    const forms: (EdnValue | number)[] = [];
    for (;;) {
      const v = this.readItem(125, opener);
      if (v === CLOSED) break;
      forms.push(v as EdnValue, this.itemStart);
    }
    this.depth--;
    // duplicates only once the literal is whole: a later syntax error is reported first
    const keyed = new Map<EntryId, EdnValue>();
    const dups = new Duplicates(this.hc);
    for (let i = 0; i < forms.length; i += 2) {
      const v = forms[i] as EdnValue;
      const id = dups.admit(v);
      if (id === undefined) this.fail(`duplicate set member ${emit(v)}`, forms[i + 1] as number, 'EDN forbids repeated members in a set literal; keep one');
      keyed.set(id, v);
    }
    return this.hc.intern(EdnSet.adopt(keyed, dups.keys), dups.texts);
  }

  readString(): string {
    const t = this.text;
    const start = this.pos;
    let i = start + 1;
    let chunk = i;
    let out = '';
    let escapedSurrogate = false;
    for (;;) {
      const c = t.charCodeAt(i);
      if (Number.isNaN(c)) this.fail('unterminated string: no closing \'"\'', start);
      if (c === 34) {
        out += t.slice(chunk, i);
        this.pos = i + 1;
        break;
      }
      if (c !== 92) {
        i++;
        continue;
      }
      out += t.slice(chunk, i);
      const e = t.charCodeAt(i + 1);
      switch (e) {
        case 116: out += '\t'; i += 2; break; // t
        case 114: out += '\r'; i += 2; break; // r
        case 110: out += '\n'; i += 2; break; // n
        case 92: out += '\\'; i += 2; break;
        case 34: out += '"'; i += 2; break;
        case 98: out += '\b'; i += 2; break; // b
        case 102: out += '\f'; i += 2; break; // f
        case 117: { // u
          const hex = t.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('a \\u escape needs exactly four hex digits', i);
          const code = parseInt(hex, 16);
          if (code >= 0xd800 && code <= 0xdfff) escapedSurrogate = true;
          out += String.fromCharCode(code);
          i += 6;
          break;
        }
        default:
          if (Number.isNaN(e)) this.fail('unterminated string: no closing \'"\'', start);
          this.fail(
            `unsupported escape \\${String.fromCodePoint(t.codePointAt(i + 1) ?? e)} in a string`,
            i,
            'strings support \\" \\\\ \\n \\t \\r \\f \\b and \\uXXXX',
          );
      }
      chunk = i;
    }
    if (escapedSurrogate && LONE_SURROGATE.test(out)) {
      this.fail('a \\u escape makes a lone UTF-16 surrogate (no character)', start, 'escape a surrogate pair as \\uD83D\\uDE00, or write the character itself');
    }
    return out;
  }

  /** The raw text of a token starting at `pos`, advancing past it. */
  takeToken(): string {
    const t = this.text;
    const start = this.pos;
    let p = start;
    const n = t.length;
    while (p < n) {
      const c = t.charCodeAt(p);
      if (c < 128 ? ASCII_END[c] === 1 : isWhitespace(c)) break;
      p++;
    }
    this.pos = p;
    return t.slice(start, p);
  }

  readToken(): EdnValue {
    const start = this.pos;
    const tok = this.takeToken();
    switch (tok) {
      case 'nil':
        return null;
      case 'true':
        return true;
      case 'false':
        return false;
    }
    const c0 = tok.charCodeAt(0);
    const c1 = tok.charCodeAt(1);
    if ((c0 >= 48 && c0 <= 57) || ((c0 === 43 || c0 === 45) && c1 >= 48 && c1 <= 57)) return this.integer(tok, start);
    const known = names.get(tok);
    if (known !== undefined) return known;
    const m = SYMBOL.exec(tok);
    const ns = m?.[2];
    const name = m?.[3];
    if (!m || name === undefined || (ns !== undefined && ns.endsWith(':/')) || name.endsWith(':') || tok.indexOf('::', 1) !== -1 || tok.startsWith('::')) {
      this.fail(`invalid token "${tok}"`, start, 'symbols and keywords start with a non-digit, use "/" at most as a namespace separator, and do not end with ":"');
    }
    const v = m[1] ? Keyword.of(tok.slice(1)) : EdnSymbol.of(tok);
    if (names.size < NAMES_MAX && tok.length <= NAME_TOKEN_MAX) names.set(tok, v);
    return v;
  }

  integer(tok: string, start: number): bigint {
    if (INTEGER.test(tok)) {
      const n = BigInt(tok);
      if (n < MIN_I64 || n > MAX_I64) {
        this.fail(`integer ${tok} is outside the signed 64-bit range`, start, 'integers must fit in a signed 64-bit long');
      }
      return n;
    }
    let what = 'malformed number';
    if (/^[+-]?\d+N$/.test(tok)) what = 'BigInt literals (N suffix) are not supported';
    else if (/M$/.test(tok)) what = 'BigDecimal literals (M suffix) are not supported';
    else if (/^[+-]?\d+\/\d+$/.test(tok)) what = 'ratios are not supported';
    else if (/^[+-]?0[xX]/.test(tok)) what = 'hexadecimal integers are not supported';
    else if (/^[+-]?\d+[rR]/.test(tok)) what = 'radix integers are not supported';
    else if (/^[+-]?0\d+$/.test(tok)) what = 'integers with a leading zero (octal) are not supported';
    else if (/^[+-]?\d+(\.\d*)?([eE][+-]?\d+)?$/.test(tok)) what = 'floating-point numbers are not supported';
    this.fail(`${what}: "${tok}"`, start, 'write integers in decimal without leading zeros; canonical EDN has no floats');
  }

  readTagged(): EdnValue {
    const start = this.pos;
    const d = this.text.charCodeAt(start + 1);
    if (Number.isNaN(d) || isWhitespace(d)) this.fail("a lone '#' is not a form", start);
    if (d === 35) this.fail('symbolic values (##Inf, ##NaN) are not supported', start);
    if (d === 34) this.fail('regular expressions (#"…") are not supported', start);
    if (d === 58) this.fail('namespaced maps (#:ns{…}) are not supported', start);
    if (endsToken(d)) this.fail(`unsupported dispatch '#${String.fromCharCode(d)}'`, start);
    this.enterPrefix();
    this.pos++;
    const tag = this.takeToken();
    if (tag !== 'inst' && tag !== 'uuid') {
      this.fail(`unknown tag #${tag}`, start, 'only the #inst and #uuid tags are supported');
    }
    const value = this.readForm();
    this.prefixes--;
    if (typeof value !== 'string') this.fail(`#${tag} must be followed by a string`, this.itemStartOf(start));
    if (tag === 'uuid') {
      if (!UUID_TEXT.test(value)) {
        this.fail(`#uuid "${value}" is not a uuid of the form 8-4-4-4-12 hex digits`, this.itemStartOf(start));
      }
      return new Uuid(value.toLowerCase());
    }
    const ms = parseInstant(value);
    if (typeof ms === 'string') this.fail(`#inst: ${ms}`, this.itemStartOf(start));
    return new Instant(ms);
  }

  /** Offset of the first non-space character after the tag starting at `start` (for errors). */
  itemStartOf(start: number): number {
    let p = start + 1;
    const t = this.text;
    while (p < t.length && !endsToken(t.charCodeAt(p))) p++;
    while (p < t.length && isWhitespace(t.charCodeAt(p))) p++;
    return p;
  }
}

/** 1-based line and column (in code points) of a UTF-16 offset. */
export function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  let column = 1;
  for (let i = lineStart; i < end; i++) {
    const c = text.charCodeAt(i);
    if (!(c >= 0xdc00 && c <= 0xdfff && i > lineStart && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff)) column++;
  }
  return { line, column };
}

/**
 * Read exactly one EDN form from `text`. `source` (a file name, an argument) is used in errors.
 * Throws `TikError('edn/malformed')` with `where` and `position` for anything outside the subset.
 */
export function readEdn(text: string, source?: string): EdnValue {
  if (typeof text !== 'string') {
    throw new TikError('edn/malformed', `expected EDN text, got ${text === null ? 'null' : typeof text}`, { where: source, hint: HINT });
  }
  const r = new Reader(text, source);
  const bad = LONE_SURROGATE.exec(text);
  if (bad) r.fail('the text holds a lone UTF-16 surrogate (not a character)', bad.index);
  if (text.charCodeAt(0) === 0xfeff) r.fail('unexpected byte-order mark at the start of the text', 0, 'save the file as UTF-8 without a BOM');
  return withReadScope(() => {
    const v = r.readItem(-1, 0);
    if (v === EOF) r.fail('no form: the text is empty or holds only whitespace and comments');
    const extra = r.readItem(-1, 0);
    if (extra !== EOF) r.fail('more than one top-level form', r.itemStart, 'a tik EDN text holds exactly one form');
    return v as EdnValue;
  });
}

/** Offset of the first byte that is not part of well-formed UTF-8, or -1. */
function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  const n = b.length;
  while (i < n) {
    const c = b[i] as number;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    let cp: number;
    if (c >= 0xc2 && c <= 0xdf) { need = 1; min = 0x80; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { need = 2; min = 0x800; cp = c & 0x0f; }
    else if (c >= 0xf0 && c <= 0xf4) { need = 3; min = 0x10000; cp = c & 0x07; }
    else return i;
    for (let k = 1; k <= need; k++) {
      const d = b[i + k];
      if (d === undefined || (d & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `readEdn` over bytes, which must be well-formed UTF-8 (else `edn/malformed` at the bad byte). */
export function readEdnBytes(bytes: Uint8Array, source?: string): EdnValue {
  if (!(bytes instanceof Uint8Array)) {
    throw new TikError('edn/malformed', `expected EDN bytes, got ${bytes === null ? 'null' : typeof bytes}`, { where: source, hint: HINT });
  }
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    const prefix = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes.subarray(0, Math.max(at, 0)));
    throw new TikError('edn/malformed', `invalid UTF-8 at byte offset ${at}`, {
      where: source,
      position: positionOf(prefix, prefix.length),
      hint: 'EDN files are UTF-8; re-save the file as UTF-8',
    });
  }
  return readEdn(text, source);
}
