/**
 * Small, kernel-local helpers over the EDN value model: building maps and sets with the canonical
 * writer as identity, and reading sequences and keyword paths tolerantly.
 */
import { emit, readEdn, contentIdOf, ednEquals } from '../edn/index.js';
import { EdnList, EdnMap, EdnSet, Keyword, type EdnValue } from '../edn/value.js';

export { emit, readEdn, contentIdOf, ednEquals };

/** An EDN map from entries; identity of keys is their canonical text. */
export function mapOf(entries: Iterable<readonly [EdnValue, EdnValue]>): EdnMap {
  return EdnMap.from(entries, emit);
}

/** An EDN set; identity of members is their canonical text. */
export function setOf(members: Iterable<EdnValue>): EdnSet {
  return EdnSet.from(members, emit);
}

export const EMPTY_MAP: EdnMap = mapOf([]);

/** The items of a vector or a list; `undefined` for anything else. */
export function seqItems(v: EdnValue | undefined): readonly EdnValue[] | undefined {
  if (Array.isArray(v)) return v as readonly EdnValue[];
  if (v instanceof EdnList) return v.items;
  return undefined;
}

/** The items of a vector, list or set (sets in canonical order); `undefined` otherwise. */
export function collItems(v: EdnValue | undefined): readonly EdnValue[] | undefined {
  const s = seqItems(v);
  if (s) return s;
  if (v instanceof EdnSet) return [...v.textEntries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map((e) => e[1]);
  return undefined;
}

/** A keyword path `[:a :b]` as keywords, or `undefined` if `v` is not a sequence of keywords. */
export function keywordPath(v: EdnValue | undefined): readonly Keyword[] | undefined {
  const items = seqItems(v);
  if (!items) return undefined;
  for (const i of items) if (!(i instanceof Keyword)) return undefined;
  return items as readonly Keyword[];
}

/** The canonical text of a keyword path as a vector, e.g. `[:resolution :ref]`. */
export function pathKey(path: readonly EdnValue[]): string {
  // Fast path for the common all-keyword path: a keyword emits as ':' + its text.
  let out = '[';
  for (let i = 0; i < path.length; i++) {
    const k = path[i];
    if (!(k instanceof Keyword)) return emit(Object.freeze([...path]));
    out += i === 0 ? k.toString() : ` ${k.toString()}`;
  }
  return `${out}]`;
}

/** Dotted text of a keyword path: `[:resolution :ref]` → `resolution.ref`. */
export function dottedPath(path: readonly Keyword[]): string {
  return path.map((k) => k.text).join('.');
}

/** Canonical text of any value, or of a keyword (`:x`). */
export function textOf(v: EdnValue): string {
  return emit(v);
}

/** Java `String.compareTo` order on strings (UTF-16 code units), which JS `<` already is. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
