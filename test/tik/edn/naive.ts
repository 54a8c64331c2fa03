/**
 * Naive references for the structural reader and writer: they write every member's whole text
 * (string sort; pairwise `=` by equality text), which is slow but obviously right.
 */
import { ednMap, ednSet } from '../../../src/tik/edn/construct.js';
import { emit, equalityText } from '../../../src/tik/edn/emit.js';
import { EdnList, EdnMap, EdnSet, type EdnValue } from '../../../src/tik/edn/value.js';

/** Reference canonical writer: members and keys sorted by their whole emitted text. */
export function naiveEmit(v: EdnValue): string {
  if (Array.isArray(v)) return '[' + (v as readonly EdnValue[]).map(naiveEmit).join(' ') + ']';
  if (v instanceof EdnList) return '(' + v.items.map(naiveEmit).join(' ') + ')';
  const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  if (v instanceof EdnSet) return '#{' + [...v.values()].map(naiveEmit).sort(byText).join(' ') + '}';
  if (v instanceof EdnMap) {
    const es = [...v.entries()].map(([k, x]) => [naiveEmit(k), naiveEmit(x)] as const).sort((a, b) => byText(a[0], b[0]));
    return '{' + es.map(([k, x]) => `${k} ${x}`).join(' ') + '}';
  }
  return emit(v);
}

/** Every list written as a vector, at any depth (an `=` twin that prints differently). */
export function listsToVectors(v: EdnValue): EdnValue {
  if (Array.isArray(v)) return Object.freeze((v as readonly EdnValue[]).map(listsToVectors));
  if (v instanceof EdnList) return Object.freeze(v.items.map(listsToVectors));
  if (v instanceof EdnSet) return ednSet([...v.values()].map(listsToVectors));
  if (v instanceof EdnMap) return ednMap([...v.entries()].map(([k, x]) => [listsToVectors(k), listsToVectors(x)] as const));
  return v;
}

/** Reference: is any member `=` to an earlier one? */
export const naiveHasDuplicate = (xs: readonly EdnValue[]): boolean => xs.some((x, i) => xs.slice(0, i).some((y) => equalityText(y) === equalityText(x)));

