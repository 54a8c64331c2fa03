/**
 * Human-oriented printing in the style of Clojure's `pr-str`: map entries separated by `, `
 * (`{:a 1, :b 2}`), everything else as the canonical writer prints it, entries and members in
 * canonical order so output is stable. Not canonical and never hashed; for `--edn` renderings,
 * messages and logs. Values it cannot print canonically are shown as `#<…>` rather than throwing.
 */
import { emit, MAX_DEPTH } from './emit.js';
import { EdnList, EdnMap, EdnSet, type EdnValue } from './value.js';

const byText = (a: readonly [string, string], b: readonly [string, string]): number => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

function pr(v: EdnValue, depth: number): string {
  if (depth > MAX_DEPTH) return '#<too deep>';
  if (Array.isArray(v)) return '[' + (v as readonly EdnValue[]).map((x) => pr(x, depth + 1)).join(' ') + ']';
  if (v instanceof EdnList) return '(' + v.items.map((x) => pr(x, depth + 1)).join(' ') + ')';
  if (v instanceof EdnMap) {
    const parts = [...v.textEntries()].map(([t, k, x]) => [t, `${pr(k, depth + 1)} ${pr(x, depth + 1)}`] as const);
    return '{' + parts.sort(byText).map((p) => p[1]).join(', ') + '}';
  }
  if (v instanceof EdnSet) {
    const parts = [...v.textEntries()].map(([t, x]) => [t, pr(x, depth + 1)] as const);
    return '#{' + parts.sort(byText).map((p) => p[1]).join(' ') + '}';
  }
  try {
    return emit(v);
  } catch {
    return `#<${typeof v === 'object' && v !== null ? ((v as object).constructor?.name ?? 'object') : typeof v} ${String(v)}>`;
  }
}

/** Clojure-`pr-str`-like text of a value (see the module comment); never throws. */
export function prStr(v: EdnValue): string {
  return pr(v, 0);
}
