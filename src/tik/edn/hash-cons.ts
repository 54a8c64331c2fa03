/**
 * Hash-consing for one read (issue 13: canonical order and duplicate detection exact, not
 * probabilistic, while the reader stays linear).
 *
 * The reader builds collections bottom-up and hands each one, once its children are in, to
 * `intern`: a collection with the same canonical text as one already read is dropped for that
 * earlier object. Two collections of one read therefore have the same text exactly when they are
 * the same object, which is what lets the canonical comparator (`structure.ts`) skip aligned
 * subtrees by identity. The same is done lazily under Clojure `=` (`eqRep`) for set members and
 * map keys, so a duplicate is an identity hit in a set of representatives.
 *
 * Candidates are found by structural digest; each is confirmed shallowly (children compared by
 * identity or by their scalar text), so a digest collision costs a comparison, never a wrong
 * answer. The tables live as long as one read and hold at most one entry per distinct collection
 * of it (bounded by the input's size); nothing is interned across reads.
 */
import { infoOf, type Collection, type Info } from './structure.js';
import { TextKeys, type TextKey } from './text-keys.js';
import { EdnList, EdnMap, EdnSet, type EdnValue } from './value.js';

/**
 * Digest → the first collection filed under it; collisions go to `more`. Keyed by the digest's
 * low 30 bits (a small integer: no boxed number per entry); the rest only sorts more candidates
 * into a bucket, and every candidate is confirmed anyway.
 */
class Buckets {
  private readonly first = new Map<number, Collection>();
  private readonly more = new Map<number, Collection[]>();

  /**
   * The collection filed under `digest` that `same(v, info, c)` accepts, else files `v` and
   * returns it (`same` is a plain function: no closure per lookup).
   */
  find<C>(digest: number, v: Collection, info: Info, ctx: C, same: (ctx: C, v: Collection, info: Info, c: Collection) => boolean): Collection {
    const key = digest % 0x40000000;
    const f = this.first.get(key);
    if (f === undefined) {
      this.first.set(key, v);
      return v;
    }
    if (same(ctx, v, info, f)) return f;
    const more = this.more.get(key);
    if (more === undefined) {
      this.more.set(key, [v]);
      return v;
    }
    for (const c of more) if (same(ctx, v, info, c)) return c;
    more.push(v);
    return v;
  }
}

/** Same canonical text, given that equal collection children are already one object. */
function sameCanonical(_: unknown, _v: Collection, a: Info, c: Collection): boolean {
  const b = infoOf(c);
  if (a.open !== b.open || a.kids.length !== b.kids.length) return false;
  for (let i = 0; i < a.kids.length; i++) {
    const x = a.kidTexts[i];
    if (x === undefined ? b.kidTexts[i] !== undefined || a.kids[i] !== b.kids[i] : x !== b.kidTexts[i]) return false;
  }
  return true;
}

const isSeq = (v: Collection): boolean => Array.isArray(v) || v instanceof EdnList;

export class HashCons {
  private readonly canonical = new Buckets();
  private readonly equal = new Buckets();
  private readonly eqReps = new Map<Collection, Collection>();

  /** `v`, or the collection read earlier with the same canonical text. */
  intern<T extends Collection>(v: T, texts?: readonly (string | undefined)[]): T {
    const info = infoOf(v, texts);
    return this.canonical.find(info.canon, v, info, undefined, sameCanonical) as T;
  }

  /** The representative of `v`'s class under Clojure `=` among this read's collections. */
  eqRep(v: Collection): Collection {
    const known = this.eqReps.get(v);
    if (known !== undefined) return known;
    const info = infoOf(v);
    // children first (bottom-up): a representative's children are resolved before it is filed, so
    // the comparison below only looks up, never recurses into a collection being resolved
    for (let i = 0; i < info.kids.length; i++) if (info.kidTexts[i] === undefined) this.eqRep(info.kids[i] as Collection);
    const rep = this.equal.find(info.eq, v, info, this, sameUnderEq);
    this.eqReps.set(v, rep);
    return rep;
  }

  /** The identity of a child under `=`: a scalar's text, a collection's representative. */
  eqKey(kid: EdnValue, text: string | undefined): string | Collection {
    return text ?? this.eqRep(kid as Collection);
  }
}

/** A child's `eqKey` as a table key (a long scalar text by its key in `texts`). */
const tableKey = (texts: TextKeys, k: string | Collection): TextKey | Collection => (typeof k === 'string' ? texts.key(k) : k);

/** `a` = `b`, one level deep (children by `eqKey`, already resolved). */
function sameUnderEq(hc: HashCons, a: Collection, ai: Info, b: Collection): boolean {
  const bi = infoOf(b);
  if (ai.kids.length !== bi.kids.length) return false;
  if (isSeq(a)) {
    if (!isSeq(b)) return false;
    for (let i = 0; i < ai.kids.length; i++) {
      if (hc.eqKey(ai.kids[i] as EdnValue, ai.kidTexts[i]) !== hc.eqKey(bi.kids[i] as EdnValue, bi.kidTexts[i])) return false;
    }
    return true;
  }
  if (a instanceof EdnSet) {
    if (!(b instanceof EdnSet)) return false;
    // members of one set are distinct under `=`: same size and inclusion is equality
    const texts = new TextKeys();
    const keys = new Set<TextKey | Collection>();
    for (let i = 0; i < bi.kids.length; i++) keys.add(tableKey(texts, hc.eqKey(bi.kids[i] as EdnValue, bi.kidTexts[i])));
    for (let i = 0; i < ai.kids.length; i++) if (!keys.has(tableKey(texts, hc.eqKey(ai.kids[i] as EdnValue, ai.kidTexts[i])))) return false;
    return true;
  }
  if (!(a instanceof EdnMap) || !(b instanceof EdnMap)) return false;
  const texts = new TextKeys();
  const values = new Map<TextKey | Collection, string | Collection>();
  for (let i = 0; i < bi.kids.length; i += 2) {
    values.set(tableKey(texts, hc.eqKey(bi.kids[i] as EdnValue, bi.kidTexts[i])), hc.eqKey(bi.kids[i + 1] as EdnValue, bi.kidTexts[i + 1]));
  }
  for (let i = 0; i < ai.kids.length; i += 2) {
    const w = values.get(tableKey(texts, hc.eqKey(ai.kids[i] as EdnValue, ai.kidTexts[i])));
    if (w === undefined || w !== hc.eqKey(ai.kids[i + 1] as EdnValue, ai.kidTexts[i + 1])) return false;
  }
  return true;
}
