import { emit, equalityText } from './emit.js';
import { EdnList, EdnMap, EdnSet, type EdnValue } from './value.js';

function holdsCollection(v: EdnValue): boolean {
  return Array.isArray(v) || v instanceof EdnList || v instanceof EdnMap || v instanceof EdnSet;
}

/**
 * Clojure `=` on EDN values (§1.7): canonical-text equality, except that a vector and a list
 * holding equal elements are equal (at any depth, including inside map keys and set members).
 */
export function ednEquals(a: EdnValue, b: EdnValue): boolean {
  if (a === b) return true;
  if (!holdsCollection(a) || !holdsCollection(b)) return emit(a) === emit(b);
  return equalityText(a) === equalityText(b);
}

/** The text deciding `ednEquals`: two values are equal exactly when their keys are. */
export function equalityKey(v: EdnValue): string {
  return holdsCollection(v) ? equalityText(v) : emit(v);
}
