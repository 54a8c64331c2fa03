/**
 * The canonical writer, format v1 (tik-model.md §1.1–1.5). Its output is the identity of every
 * value: content addresses hash these bytes, and maps and sets are keyed by this text.
 *
 * - exactly one space between elements, no commas, no trailing newline;
 * - map entries sorted by the emitted text of the key, set members by their emitted text, with
 *   Java `String.compareTo` order (UTF-16 code units, which is JS `<`), found structurally without
 *   comparing whole texts (`structure.ts`);
 * - strings escape exactly `"` `\` LF TAB CR FF BS; everything else is raw (output is UTF-8);
 * - instants as Java `Instant.toString()` at millisecond precision; uuids in lower case;
 * - integers are `bigint` in the signed 64-bit range; anything else (a JS number, a float, an
 *   out-of-range integer, a string with a lone surrogate, an object that is not an EDN value) is
 *   `canonical/unsupported-type`; nesting deeper than 512 collections is `canonical/too-deep`.
 */
import { TikError } from '../errors.js';
import { formatInstant } from './instant-text.js';
import { infoOf } from './structure.js';
import { EdnList, EdnMap, EdnSet, EdnSymbol, Instant, Keyword, Uuid, registerCanonicalText, type EdnValue } from './value.js';

/** Deepest allowed collection nesting; a top-level collection is at depth 1. */
export const MAX_DEPTH = 512;

const MIN_I64 = -(2n ** 63n);
const MAX_I64 = 2n ** 63n - 1n;
const UUID_TEXT = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const NEEDS_ESCAPE = /["\\\n\t\r\f\b]/;
const NEEDS_ESCAPE_ALL = /["\\\n\t\r\f\b]/g;
const ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\t': '\\t',
  '\r': '\\r',
  '\f': '\\f',
  '\b': '\\b',
};
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

type WellFormedCheck = (this: string) => boolean;
const nativeWellFormed = (String.prototype as unknown as { isWellFormed?: WellFormedCheck }).isWellFormed;
/** No lone UTF-16 surrogates (native `String.prototype.isWellFormed` where the runtime has it). */
const isWellFormed = (s: string): boolean => (nativeWellFormed ? nativeWellFormed.call(s) : !LONE_SURROGATE.test(s));

/** Thrown inside the recursion; carries the key path so the public error can say where. */
class EmitFailure {
  readonly path: string[] = [];
  constructor(
    readonly code: 'canonical/unsupported-type' | 'canonical/too-deep',
    readonly message: string,
    readonly hint: string,
  ) {}
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const byFirst = (a: readonly [string, string], b: readonly [string, string]): number => compareText(a[0], b[0]);

/** A string literal with exactly the seven canonical escapes. */
export function emitString(s: string): string {
  if (!isWellFormed(s)) {
    throw new EmitFailure(
      'canonical/unsupported-type',
      'a string contains a lone UTF-16 surrogate, which has no UTF-8 encoding',
      'remove the unpaired surrogate (\\uD800–\\uDFFF) from the text',
    );
  }
  if (!NEEDS_ESCAPE.test(s)) return '"' + s + '"';
  return '"' + s.replace(NEEDS_ESCAPE_ALL, (c) => ESCAPES[c] ?? c) + '"';
}

function unsupported(what: string): EmitFailure {
  return new EmitFailure(
    'canonical/unsupported-type',
    `${what} cannot be written in canonical EDN`,
    'canonical EDN holds nil, booleans, 64-bit integers (bigint), strings, keywords, symbols, #uuid, #inst, vectors, lists, maps and sets',
  );
}

/**
 * The canonical (and the equality) text of each immutable collection, computed once: a value's
 * text is a function of its contents, so a parent reuses its children's texts instead of writing
 * them again (the reader asks for member texts level by level; without this a nested value is
 * re-emitted once per level). Texts are built by concatenation, so they share their children's
 * storage rather than copy it. Weak: a value no longer held frees its text.
 */
const canonicalCache = new WeakMap<object, string>();
const equalityCache = new WeakMap<object, string>();

const heights = new WeakMap<object, number>();

/** Collection nesting below and including `v` (0 for a scalar), computed once per collection. */
function heightOf(v: EdnValue): number {
  if (typeof v !== 'object' || v === null) return 0;
  const known = heights.get(v);
  if (known !== undefined) return known;
  let children: Iterable<EdnValue>;
  if (Array.isArray(v)) children = v as readonly EdnValue[];
  else if (v instanceof EdnList) children = v.items;
  else if (v instanceof EdnSet) children = v.values();
  else if (v instanceof EdnMap) children = [...v.entries()].flat();
  else return 0;
  let h = 0;
  for (const c of children) h = Math.max(h, heightOf(c));
  heights.set(v, h + 1);
  return h + 1;
}

/** Collections whose contents cannot change: everything the reader and the constructors build. */
function cacheable(v: object): boolean {
  return v instanceof EdnMap || v instanceof EdnSet || v instanceof EdnList || (Array.isArray(v) && Object.isFrozen(v));
}

/**
 * The writer proper. `listsAsVectors` gives the equality text (Clojure `=` treats a list and a
 * vector with equal elements as equal); canonical output never sets it.
 */
function write(v: EdnValue, depth: number, listsAsVectors: boolean): string {
  switch (typeof v) {
    case 'string':
      return emitString(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      if (v < MIN_I64 || v > MAX_I64) throw unsupported(`the integer ${v} (outside the signed 64-bit range)`);
      return v.toString();
    case 'number':
      throw unsupported(
        Number.isInteger(v) ? `the JS number ${v} (integers must be bigint)` : `the floating-point number ${v}`,
      );
    case 'object':
      break;
    default:
      throw unsupported(`a value of JS type ${typeof v}`);
  }
  if (v === null) return 'nil';
  if (v instanceof Keyword) return ':' + v.text;
  if (cacheable(v)) {
    const cache = listsAsVectors ? equalityCache : canonicalCache;
    const known = cache.get(v);
    if (known !== undefined) {
      // a cached text was written at some depth; here it must still fit under the limit
      if (depth + heightOf(v) > MAX_DEPTH) throw tooDeep();
      return known;
    }
    const text = writeCollection(v, depth, listsAsVectors);
    cache.set(v, text);
    return text;
  }
  if (Array.isArray(v)) return writeCollection(v, depth, listsAsVectors);
  if (v instanceof Uuid) {
    if (!UUID_TEXT.test(v.text)) throw unsupported(`the uuid "${v.text}" (not 8-4-4-4-12 hex)`);
    return '#uuid "' + v.text.toLowerCase() + '"';
  }
  if (v instanceof Instant) return '#inst "' + formatInstant(v.ms) + '"';
  if (v instanceof EdnSymbol) return v.text;
  const name = (v as object).constructor?.name ?? 'Object';
  throw unsupported(`a ${name === 'Object' ? 'plain object' : name}`);
}

/** A collection's text (cached by `write`). */
function writeCollection(v: EdnValue, depth: number, listsAsVectors: boolean): string {
  if (Array.isArray(v)) return writeSeq(v as readonly EdnValue[], '[', ']', depth, listsAsVectors);
  if (v instanceof EdnMap) return writeMap(v, depth, listsAsVectors);
  if (v instanceof EdnSet) return writeSet(v, depth, listsAsVectors);
  const list = v as EdnList;
  return listsAsVectors ? writeSeq(list.items, '[', ']', depth, true) : writeSeq(list.items, '(', ')', depth, false);
}

function tooDeep(): EmitFailure {
  return new EmitFailure(
    'canonical/too-deep',
    `collections are nested more than ${MAX_DEPTH} deep`,
    `flatten the value; canonical EDN allows at most ${MAX_DEPTH} levels of nesting`,
  );
}

function writeSeq(items: readonly EdnValue[], open: string, close: string, depth: number, lav: boolean): string {
  if (depth >= MAX_DEPTH) throw tooDeep();
  let out = open;
  for (let i = 0; i < items.length; i++) {
    let t: string;
    try {
      t = write(items[i] as EdnValue, depth + 1, lav);
    } catch (e) {
      if (e instanceof EmitFailure) e.path.push(String(i));
      throw e;
    }
    out += i === 0 ? t : ' ' + t;
  }
  return out + close;
}

function writeMap(m: EdnMap, depth: number, lav: boolean): string {
  if (depth >= MAX_DEPTH) throw tooDeep();
  const parts: [string, string][] = [];
  for (const [k, v] of m.entries()) {
    const kt = write(k, depth + 1, lav);
    let vt: string;
    try {
      vt = write(v, depth + 1, lav);
    } catch (e) {
      if (e instanceof EmitFailure) e.path.push(kt);
      throw e;
    }
    parts.push([kt, vt]);
  }
  if (!lav) {
    // canonical order from the structure (never by comparing the texts: that flattens them)
    const info = infoOf(m, parts.flat());
    if (info.repeats) throw unsupported('a map with a key twice');
    let out = '{';
    for (let i = 0; i < info.order!.length; i++) {
      const [kt, vt] = parts[info.order![i]!]!;
      out += (i === 0 ? '' : ' ') + kt + ' ' + vt;
    }
    return out + '}';
  }
  parts.sort(byFirst);
  let out = '{';
  for (let i = 0; i < parts.length; i++) {
    const [kt, vt] = parts[i] as [string, string];
    if (i > 0) out += ' ';
    out += kt + ' ' + vt;
  }
  return out + '}';
}

function writeSet(s: EdnSet, depth: number, lav: boolean): string {
  if (depth >= MAX_DEPTH) throw tooDeep();
  const parts: string[] = [];
  for (const v of s.values()) parts.push(write(v, depth + 1, lav));
  if (!lav) {
    const info = infoOf(s, parts);
    if (info.repeats) throw unsupported('a set with a member twice');
    // concatenation, not join: a nested text stays shared, not copied
    let out = '#{';
    for (let i = 0; i < info.order!.length; i++) out += (i === 0 ? '' : ' ') + parts[info.order![i]!]!;
    return out + '}';
  }
  parts.sort(compareText);
  return '#{' + parts.join(' ') + '}';
}

function run(v: EdnValue, listsAsVectors: boolean): string {
  try {
    return write(v, 0, listsAsVectors);
  } catch (e) {
    if (!(e instanceof EmitFailure)) throw e;
    const where = e.path.length === 0 ? undefined : `at [${e.path.reverse().join(' ')}]`;
    throw new TikError(e.code, e.message, { where, hint: e.hint });
  }
}

/** The canonical text of a value (format v1). Throws `TikError` `canonical/*` for what it cannot hold. */
export function emit(v: EdnValue): string {
  return run(v, false);
}

registerCanonicalText(emit);

/** The canonical bytes of a value: UTF-8 of `emit(v)`. */
export function emitBytes(v: EdnValue): Buffer {
  return Buffer.from(emit(v), 'utf8');
}

/**
 * The text that decides Clojure `=`: canonical emission with every list written as a vector, and
 * maps and sets sorted by that same text. Two values are `=` exactly when these texts are equal.
 */
export function equalityText(v: EdnValue): string {
  return run(v, true);
}
