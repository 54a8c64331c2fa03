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
 *   lazily and skips, in one step, any pair of aligned collections whose `canon` digests agree.
 *
 * The digest is HalfSipHash-1-3 under a key drawn per process, so input cannot be crafted to
 * collide: duplicate detection still confirms a digest match with `ednEquals`.
 */
import { randomBytes } from 'node:crypto';
import { emit } from './emit.js';
import { EdnList, EdnMap, EdnSet, type EdnValue } from './value.js';

/** Work counters, for tests that check growth by counting steps rather than timing them. */
export const structureWork = { compareSteps: 0, hashedWords: 0 };

const key = randomBytes(8);
const K0 = key.readInt32LE(0);
const K1 = key.readInt32LE(4);

const rotl = (x: number, b: number): number => (x << b) | (x >>> (32 - b));

/** HalfSipHash-1-3 with 64-bit output, fed 32-bit words; the digest is 53 bits of it. */
class Hasher {
  v0 = K0;
  v1 = K1 ^ 0xee;
  v2 = 0x6c796765 ^ K0;
  v3 = 0x74656462 ^ K1;
  n = 0;

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
    return hi * 4294967296 + lo;
  }
}

const SCALAR = 1, VECTOR = 2, LIST = 3, MAP = 4, SET = 5, SEQ_EQ = 6, ENTRY_EQ = 7;

/** The digest of a scalar's canonical text (two UTF-16 units per word). */
export function textDigest(text: string): number {
  const h = new Hasher();
  h.word(SCALAR);
  const n = text.length;
  let i = 0;
  for (; i + 1 < n; i += 2) h.word(text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16));
  if (i < n) h.word(text.charCodeAt(i) | 0xffff0000);
  h.word(n);
  return h.finish();
}

export function isCollection(v: EdnValue): v is readonly EdnValue[] | EdnList | EdnMap | EdnSet {
  return Array.isArray(v) || v instanceof EdnList || v instanceof EdnMap || v instanceof EdnSet;
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
  readonly kidCanon: readonly number[];
  /** For a map or set: positions (in `values()` / `entries()` order) in canonical order. */
  readonly order: readonly number[] | undefined;
  /** Two members (keys) with the same canonical text: only from a constructor given a foreign key function. */
  readonly repeats: boolean;
}

const infos = new WeakMap<object, Info>();

function kidFacts(v: EdnValue, text: string | undefined): [string | undefined, number, number] {
  if (isCollection(v)) {
    const i = infoOf(v);
    return [undefined, i.canon, i.eq];
  }
  const t = text ?? emit(v);
  const d = textDigest(t);
  return [t, d, d];
}

/**
 * The structure of a collection (cached; values are immutable). `texts`, when given, are the
 * canonical texts of its elements in iteration order (for a map: keys then values, per entry),
 * already written by the caller; a scalar's is reused instead of written again.
 */
export function infoOf(v: readonly EdnValue[] | EdnList | EdnMap | EdnSet, texts?: readonly string[]): Info {
  const known = infos.get(v);
  if (known !== undefined) return known;
  let info: Info;
  if (Array.isArray(v) || v instanceof EdnList) {
    const items: readonly EdnValue[] = Array.isArray(v) ? (v as readonly EdnValue[]) : (v as EdnList).items;
    const kidTexts: (string | undefined)[] = [];
    const kidCanon: number[] = [];
    const list = v instanceof EdnList;
    const hc = new Hasher();
    hc.word(list ? LIST : VECTOR);
    const he = new Hasher();
    he.word(SEQ_EQ);
    for (let i = 0; i < items.length; i++) {
      const [t, c, e] = kidFacts(items[i] as EdnValue, texts?.[i]);
      kidTexts.push(t);
      kidCanon.push(c);
      hc.digest(c);
      he.digest(e);
    }
    info = { canon: hc.finish(), eq: he.finish(), open: list ? '(' : '[', close: list ? 41 : 93, kids: items, kidTexts, kidCanon, order: undefined, repeats: false };
  } else if (v instanceof EdnSet) {
    const members = [...v.values()];
    const facts = members.map((m, i) => kidFacts(m, texts?.[i]));
    const order = members.map((_, i) => i);
    let repeats = false;
    order.sort((a, b) => {
      const r = compareNodes(members[a] as EdnValue, facts[a]![0], facts[a]![1], members[b] as EdnValue, facts[b]![0], facts[b]![1]);
      if (r === 0) repeats = true;
      return r;
    });
    const hc = new Hasher();
    hc.word(SET);
    for (const i of order) hc.digest(facts[i]![1]);
    const he = new Hasher();
    he.word(SET);
    for (const e of facts.map((f) => f[2]).sort((a, b) => a - b)) he.digest(e);
    info = {
      canon: hc.finish(), eq: he.finish(), open: '#{', close: 125,
      kids: order.map((i) => members[i] as EdnValue), kidTexts: order.map((i) => facts[i]![0]), kidCanon: order.map((i) => facts[i]![1]),
      order, repeats,
    };
  } else {
    const entries = [...(v as EdnMap).entries()];
    const kf = entries.map(([k], i) => kidFacts(k, texts?.[2 * i]));
    const vf = entries.map(([, x], i) => kidFacts(x, texts?.[2 * i + 1]));
    const order = entries.map((_, i) => i);
    let repeats = false;
    order.sort((a, b) => {
      const r = compareNodes(entries[a]![0], kf[a]![0], kf[a]![1], entries[b]![0], kf[b]![0], kf[b]![1]);
      if (r === 0) repeats = true;
      return r;
    });
    const kids: EdnValue[] = [];
    const kidTexts: (string | undefined)[] = [];
    const kidCanon: number[] = [];
    const hc = new Hasher();
    hc.word(MAP);
    for (const i of order) {
      kids.push(entries[i]![0], entries[i]![1]);
      kidTexts.push(kf[i]![0], vf[i]![0]);
      kidCanon.push(kf[i]![1], vf[i]![1]);
      hc.digest(kf[i]![1]);
      hc.digest(vf[i]![1]);
    }
    const entryEq = entries.map((_, i) => {
      const h = new Hasher();
      h.word(ENTRY_EQ);
      h.digest(kf[i]![2]);
      h.digest(vf[i]![2]);
      return h.finish();
    });
    const he = new Hasher();
    he.word(MAP);
    for (const e of entryEq.sort((a, b) => a - b)) he.digest(e);
    info = { canon: hc.finish(), eq: he.finish(), open: '{', close: 125, kids, kidTexts, kidCanon, order, repeats };
  }
  infos.set(v, info);
  return info;
}

/** The digest deciding `=` (a match is only a candidate: confirm with `ednEquals`). */
export function equalityDigest(v: EdnValue): number {
  return isCollection(v) ? infoOf(v).eq : textDigest(emit(v));
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
  d: number;

  constructor(v: EdnValue, t: string | undefined, d: number) {
    this.v = v;
    this.t = t;
    this.d = d;
  }

  /** The next character code, `END`, or `NODE` (then `v`, `t`, `d` describe the child). */
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
      this.d = info.kidCanon[i] as number;
      return NODE;
    }
  }

  /** Continue into the child last returned as `NODE`. */
  open(): void {
    if (this.t !== undefined) {
      this.stack.push({ s: this.t, i: 0 });
      return;
    }
    const info = infoOf(this.v as readonly EdnValue[]);
    this.stack.push({ info, i: 0, sep: false }, { s: info.open, i: 0 });
  }
}

/**
 * Java `String.compareTo` of two values' canonical texts, without writing them: aligned children
 * with equal digests are skipped whole. `t*` is a scalar's text (undefined for a collection), `d*`
 * its canonical digest.
 */
export function compareNodes(a: EdnValue, ta: string | undefined, da: number, b: EdnValue, tb: string | undefined, db: number): number {
  if (ta !== undefined && tb !== undefined) {
    structureWork.compareSteps++;
    return ta < tb ? -1 : ta > tb ? 1 : 0;
  }
  // texts starting differently (the common case: a keyword beside a collection) need no walk
  const fa = ta !== undefined ? ta.charCodeAt(0) : infoOf(a as readonly EdnValue[]).open.charCodeAt(0);
  const fb = tb !== undefined ? tb.charCodeAt(0) : infoOf(b as readonly EdnValue[]).open.charCodeAt(0);
  if (fa !== fb || Number.isNaN(fa)) {
    structureWork.compareSteps++;
    return Number.isNaN(fa) ? (Number.isNaN(fb) ? 0 : -1) : Number.isNaN(fb) || fa > fb ? 1 : -1;
  }
  const ca = new Cursor(a, ta, da);
  const cb = new Cursor(b, tb, db);
  let x = ca.pull();
  let y = cb.pull();
  for (;;) {
    structureWork.compareSteps++;
    if (x === NODE && y === NODE) {
      if ((ca.t === undefined) === (cb.t === undefined) && ca.d === cb.d && (ca.t === undefined || ca.t === cb.t)) {
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
  const fa = kidFacts(a, undefined);
  const fb = kidFacts(b, undefined);
  return compareNodes(a, fa[0], fa[1], b, fb[0], fb[1]);
}
