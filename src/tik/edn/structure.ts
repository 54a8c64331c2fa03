/**
 * Structural digests and canonical order of collections, computed once per collection, bottom-up
 * (issue 13: a reader linear in its input).
 *
 * A collection's canonical text contains its members' texts, so a set of sets (or a map keyed by
 * maps) nested 500 deep cannot afford to hash or compare member texts at every level: each level
 * would flatten the whole text below it. Instead every collection gets, once:
 * - `canon`, a keyed digest of its canonical text (from its members' digests, in canonical order);
 * - `eq`, a keyed digest under Clojure `=` (a list digests as a vector; sets and maps ignore order);
 * - its members in canonical order, sorted by a comparator that walks both values' canonical text
 *   lazily and skips, in one step, any pair of aligned collections that are the same object.
 *
 * A digest only ever proposes a candidate; nothing is decided by one. The reader hash-conses
 * (`hash-cons.ts`): equal collections of one read are one object, so "the same object" there is
 * exactly "the same text", and the comparator's skip is exact. Distinct but equal collections
 * built elsewhere are walked instead of skipped: slower, never wrong. The digest is
 * HalfSipHash-1-3 under a key drawn per process, so input cannot be crafted to collide often.
 */
import { emit } from './emit.js';
import { digestKey, nativeTextDigest, reduceDigest } from './text-keys.js';
import { EdnList, EdnMap, EdnSet, Keyword, keepMemo, memoOf, type EdnValue } from './value.js';

/** Work counters, for tests that check growth by counting steps rather than timing them. */
export const structureWork = { compareSteps: 0, hashedWords: 0 };

export { narrowDigests } from './text-keys.js';

const K0 = digestKey.readInt32LE(0);
const K1 = digestKey.readInt32LE(4);

const rotl = (x: number, b: number): number => (x << b) | (x >>> (32 - b));

/** HalfSipHash-1-3 with 64-bit output, fed 32-bit words; the digest is 53 bits of it. */
class Hasher {
  v0 = 0;
  v1 = 0;
  v2 = 0;
  v3 = 0;
  n = 0;

  /** Start a new digest (one instance serves every digest in turn: nothing is allocated). */
  reset(tag: number): this {
    this.v0 = K0;
    this.v1 = K1 ^ 0xee;
    this.v2 = 0x6c796765 ^ K0;
    this.v3 = 0x74656462 ^ K1;
    this.n = 0;
    this.word(tag);
    return this;
  }

  private round(): void {
    this.v0 = (this.v0 + this.v1) | 0; this.v1 = rotl(this.v1, 5) ^ this.v0; this.v0 = rotl(this.v0, 16);
    this.v2 = (this.v2 + this.v3) | 0; this.v3 = rotl(this.v3, 8) ^ this.v2;
    this.v0 = (this.v0 + this.v3) | 0; this.v3 = rotl(this.v3, 7) ^ this.v0;
    this.v2 = (this.v2 + this.v1) | 0; this.v1 = rotl(this.v1, 13) ^ this.v2; this.v2 = rotl(this.v2, 16);
  }

  word(m: number): void {
    this.v3 ^= m;
    this.round();
    this.v0 ^= m;
    this.n++;
  }

  /** A 53-bit digest (fed as two words: low 32 bits, then the high 21). */
  digest(d: number): void {
    this.word(d >>> 0);
    this.word(Math.floor(d / 4294967296));
  }

  finish(): number {
    const b = this.n << 24;
    this.v3 ^= b;
    this.round();
    this.v0 ^= b;
    this.v2 ^= 0xee;
    this.round(); this.round(); this.round();
    const lo = (this.v1 ^ this.v3) >>> 0;
    this.v1 ^= 0xdd;
    this.round(); this.round(); this.round();
    const hi = ((this.v1 ^ this.v3) >>> 0) & 0x1fffff;
    structureWork.hashedWords += this.n;
    return reduceDigest(hi * 4294967296 + lo);
  }
}

/**
 * The hashers (reused: nothing is allocated per digest): H0 for scalar texts; H1 and H2 for a
 * collection's own digests, each started and finished with only H0 used in between.
 */
const H0 = new Hasher();
const H1 = new Hasher();
const H2 = new Hasher();

const SCALAR = 1, VECTOR = 2, LIST = 3, MAP = 4, SET = 5, SEQ_EQ = 6, ENTRY_EQ = 7;

/** From this length on, a scalar text is digested natively (SHA-256: about ten times faster). */
const NATIVE_FROM = 256;

/** The digest of a scalar's canonical text (two UTF-16 units per word). */
export function textDigest(text: string): number {
  const n = text.length;
  if (n >= NATIVE_FROM) {
    structureWork.hashedWords += n >> 1;
    return nativeTextDigest(text);
  }
  const h = H0.reset(SCALAR);
  let i = 0;
  for (; i + 1 < n; i += 2) h.word(text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16));
  if (i < n) h.word(text.charCodeAt(i) | 0xffff0000);
  h.word(n);
  return h.finish();
}

export type Collection = readonly EdnValue[] | EdnList | EdnMap | EdnSet;

export function isCollection(v: EdnValue): v is Collection {
  return Array.isArray(v) || v instanceof EdnList || v instanceof EdnMap || v instanceof EdnSet;
}

const MIN_I64 = -(2n ** 63n);
const MAX_I64 = 2n ** 63n - 1n;

/** The canonical text of a scalar (a keyword or an integer in range without the general writer). */
export function scalarText(v: EdnValue): string {
  if (v instanceof Keyword) return ':' + v.text;
  if (typeof v === 'bigint' && v >= MIN_I64 && v <= MAX_I64) return v.toString();
  return emit(v);
}

export interface Info {
  /** Digest of the canonical text. */
  readonly canon: number;
  /** Digest under Clojure `=`. */
  readonly eq: number;
  readonly open: string;
  readonly close: number;
  /** Children in canonical order (a map's keys and values interleaved). */
  readonly kids: readonly EdnValue[];
  /** Canonical text of each scalar child (undefined for a collection child). */
  readonly kidTexts: readonly (string | undefined)[];
  /** For a map or set: positions (in `values()` / `entries()` order) in canonical order. */
  readonly order: readonly number[] | undefined;
  /** Two members (keys) with the same canonical text: only from a constructor given a foreign key function. */
  readonly repeats: boolean;
}

/** Vectors' structures (a frozen array has no memo slot); lists, maps and sets keep theirs. */
const infos = new WeakMap<object, Info>();
/**
 * During a read, vectors' structures go to this plain table instead (a WeakMap entry per vector
 * made garbage collection dominate reading); it is dropped with the read. A vector's structure is
 * recomputed if asked for again later (only a set or map built afterwards, around it, asks).
 */
let readScope: Map<object, Info> | undefined;

/** Run `f` (a read) with vectors' structures kept in a table of its own (scopes nest). */
export function withReadScope<T>(f: () => T): T {
  const outer = readScope;
  readScope = new Map();
  try {
    return f();
  } finally {
    readScope = outer;
  }
}

// The facts of the last child given to `facts` (no tuple allocated per child).
let factText: string | undefined;
let factCanon = 0;
let factEq = 0;

function facts(v: EdnValue, text: string | undefined): void {
  if (isCollection(v)) {
    const i = infoOf(v);
    factText = undefined;
    factCanon = i.canon;
    factEq = i.eq;
    return;
  }
  const t = text ?? scalarText(v);
  factText = t;
  factCanon = factEq = textDigest(t);
}

const numeric = (a: number, b: number): number => a - b;

/**
 * The structure of a collection (cached; values are immutable). `texts`, when given, are the
 * canonical texts of its elements in iteration order (for a map: keys then values, per entry;
 * undefined where not known), already written by the caller; a scalar's is reused instead of
 * written again.
 */
export function infoOf(v: Collection, texts?: readonly (string | undefined)[]): Info {
  const vector = Array.isArray(v);
  const known = (vector ? (readScope?.get(v) ?? infos.get(v)) : memoOf(v)) as Info | undefined;
  if (known !== undefined) return known;
  const info = vector || v instanceof EdnList ? seqInfo(v, texts) : v instanceof EdnSet ? setInfo(v, texts) : mapInfo(v as EdnMap, texts);
  if (!vector) keepMemo(v, info);
  else if (readScope !== undefined) readScope.set(v, info);
  else infos.set(v, info);
  return info;
}

function seqInfo(v: readonly EdnValue[] | EdnList, texts: readonly (string | undefined)[] | undefined): Info {
  const list = v instanceof EdnList;
  const items: readonly EdnValue[] = list ? v.items : v;
  const n = items.length;
  // children's structures first (computed now only for values not built by the reader), so the
  // two digests below can run side by side with nothing else hashing in between but scalars
  for (let i = 0; i < n; i++) {
    const x = items[i] as EdnValue;
    if (isCollection(x)) infoOf(x);
  }
  const kidTexts: (string | undefined)[] = new Array<string | undefined>(n);
  const hc = H1.reset(list ? LIST : VECTOR);
  const he = H2.reset(SEQ_EQ);
  for (let i = 0; i < n; i++) {
    const x = items[i] as EdnValue;
    if (isCollection(x)) {
      const k = infoOf(x);
      kidTexts[i] = undefined;
      hc.digest(k.canon);
      he.digest(k.eq);
    } else {
      const t = texts?.[i] ?? scalarText(x);
      const d = textDigest(t);
      kidTexts[i] = t;
      hc.digest(d);
      he.digest(d);
    }
  }
  return { canon: hc.finish(), eq: he.finish(), open: list ? '(' : '[', close: list ? 41 : 93, kids: items, kidTexts, order: undefined, repeats: false };
}

/** Positions 0‥n-1 sorted by the canonical order of `vals` (texts of scalars in `texts`). */
function canonicalOrder(vals: readonly EdnValue[], texts: readonly (string | undefined)[]): { order: number[]; repeats: boolean } {
  const n = vals.length;
  const order = new Array<number>(n);
  for (let i = 0; i < n; i++) order[i] = i;
  let repeats = false;
  if (n > 1) {
    order.sort((a, b) => {
      const r = compareNodes(vals[a] as EdnValue, texts[a], vals[b] as EdnValue, texts[b]);
      if (r === 0) repeats = true;
      return r;
    });
  }
  return { order, repeats };
}

function setInfo(v: EdnSet, texts: readonly (string | undefined)[] | undefined): Info {
  const members = [...v.values()];
  const n = members.length;
  const mt: (string | undefined)[] = new Array<string | undefined>(n);
  const mc: number[] = new Array<number>(n);
  const me: number[] = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    facts(members[i] as EdnValue, texts?.[i]);
    mt[i] = factText;
    mc[i] = factCanon;
    me[i] = factEq;
  }
  const { order, repeats } = canonicalOrder(members, mt);
  const hc = H1.reset(SET);
  for (let i = 0; i < n; i++) hc.digest(mc[order[i]!]!);
  const c = hc.finish();
  me.sort(numeric);
  const he = H1.reset(SET);
  for (let i = 0; i < n; i++) he.digest(me[i]!);
  const inOrder = n < 2;
  return {
    canon: c, eq: he.finish(), open: '#{', close: 125,
    kids: inOrder ? members : order.map((i) => members[i] as EdnValue),
    kidTexts: inOrder ? mt : order.map((i) => mt[i]),
    order, repeats,
  };
}

function mapInfo(v: EdnMap, texts: readonly (string | undefined)[] | undefined): Info {
  const n = v.size;
  const keys = new Array<EdnValue>(n);
  const vals = new Array<EdnValue>(n);
  const kt: (string | undefined)[] = new Array<string | undefined>(n);
  const vt: (string | undefined)[] = new Array<string | undefined>(n);
  const kc: number[] = new Array<number>(n);
  const vc: number[] = new Array<number>(n);
  const entryEq: number[] = new Array<number>(n);
  let i = 0;
  for (const [k, x] of v.entries()) {
    keys[i] = k;
    vals[i] = x;
    facts(k, texts?.[2 * i]);
    kt[i] = factText;
    kc[i] = factCanon;
    const ke = factEq;
    facts(x, texts?.[2 * i + 1]);
    vt[i] = factText;
    vc[i] = factCanon;
    const h = H1.reset(ENTRY_EQ);
    h.digest(ke);
    h.digest(factEq);
    entryEq[i] = h.finish();
    i++;
  }
  const { order, repeats } = canonicalOrder(keys, kt);
  const kids = new Array<EdnValue>(2 * n);
  const kidTexts = new Array<string | undefined>(2 * n);
  const hc = H1.reset(MAP);
  for (let j = 0; j < n; j++) {
    const o = order[j]!;
    kids[2 * j] = keys[o] as EdnValue;
    kids[2 * j + 1] = vals[o] as EdnValue;
    kidTexts[2 * j] = kt[o];
    kidTexts[2 * j + 1] = vt[o];
    hc.digest(kc[o]!);
    hc.digest(vc[o]!);
  }
  const c = hc.finish();
  entryEq.sort(numeric);
  const he = H1.reset(MAP);
  for (let j = 0; j < n; j++) he.digest(entryEq[j]!);
  return { canon: c, eq: he.finish(), open: '{', close: 125, kids, kidTexts, order, repeats };
}

/** The digest deciding `=` (a match is only a candidate). */
export function equalityDigest(v: EdnValue): number {
  return isCollection(v) ? infoOf(v).eq : textDigest(scalarText(v));
}

const NODE = -2;
const END = -1;

interface TextFrame {
  readonly s: string;
  i: number;
}
interface SeqFrame {
  readonly info: Info;
  i: number;
  sep: boolean;
}

/** A lazy walk of a value's canonical text: characters, or whole child values to skip or open. */
class Cursor {
  private readonly stack: (TextFrame | SeqFrame)[] = [];
  private rootPending = true;
  v: EdnValue;
  t: string | undefined;

  constructor(v: EdnValue, t: string | undefined) {
    this.v = v;
    this.t = t;
  }

  /** The next character code, `END`, or `NODE` (then `v` and `t` describe the child). */
  pull(): number {
    for (;;) {
      const f = this.stack[this.stack.length - 1];
      if (f === undefined) {
        if (!this.rootPending) return END;
        this.rootPending = false;
        return NODE;
      }
      if ('s' in f) {
        if (f.i < f.s.length) return f.s.charCodeAt(f.i++);
        this.stack.pop();
        continue;
      }
      const info = f.info;
      if (f.i >= info.kids.length) {
        this.stack.pop();
        return info.close;
      }
      if (f.sep) {
        f.sep = false;
        return 32;
      }
      const i = f.i++;
      f.sep = true;
      this.v = info.kids[i] as EdnValue;
      this.t = info.kidTexts[i];
      return NODE;
    }
  }

  /** Continue into the child last returned as `NODE`. */
  open(): void {
    if (this.t !== undefined) {
      this.stack.push({ s: this.t, i: 0 });
      return;
    }
    const info = infoOf(this.v as Collection);
    this.stack.push({ info, i: 0, sep: false }, { s: info.open, i: 0 });
  }
}

/**
 * Java `String.compareTo` of two values' canonical texts, without writing them: aligned children
 * that are one object (or scalars of one text) are skipped whole; anything else is walked, so the
 * answer never depends on a digest. `t*` is a scalar's text (undefined for a collection).
 */
export function compareNodes(a: EdnValue, ta: string | undefined, b: EdnValue, tb: string | undefined): number {
  if (ta !== undefined && tb !== undefined) {
    structureWork.compareSteps++;
    return ta < tb ? -1 : ta > tb ? 1 : 0;
  }
  if (a === b) return 0;
  // texts starting differently (the common case: a keyword beside a collection) need no walk
  const fa = ta !== undefined ? ta.charCodeAt(0) : infoOf(a as Collection).open.charCodeAt(0);
  const fb = tb !== undefined ? tb.charCodeAt(0) : infoOf(b as Collection).open.charCodeAt(0);
  if (fa !== fb || Number.isNaN(fa)) {
    structureWork.compareSteps++;
    return Number.isNaN(fa) ? (Number.isNaN(fb) ? 0 : -1) : Number.isNaN(fb) || fa > fb ? 1 : -1;
  }
  const ca = new Cursor(a, ta);
  const cb = new Cursor(b, tb);
  let x = ca.pull();
  let y = cb.pull();
  for (;;) {
    structureWork.compareSteps++;
    if (x === NODE && y === NODE) {
      if (ca.t === undefined ? cb.t === undefined && ca.v === cb.v : ca.t === cb.t) {
        x = ca.pull();
        y = cb.pull();
        continue;
      }
      ca.open();
      cb.open();
      x = ca.pull();
      y = cb.pull();
      continue;
    }
    if (x === NODE) {
      ca.open();
      x = ca.pull();
      continue;
    }
    if (y === NODE) {
      cb.open();
      y = cb.pull();
      continue;
    }
    if (x !== y) return x < y ? -1 : 1;
    if (x === END) return 0;
    x = ca.pull();
    y = cb.pull();
  }
}

/** Canonical order of two values (negative, zero, positive), as `emit(a)` vs `emit(b)`. */
export function compareCanonical(a: EdnValue, b: EdnValue): number {
  return compareNodes(a, isCollection(a) ? undefined : scalarText(a), b, isCollection(b) ? undefined : scalarText(b));
}
