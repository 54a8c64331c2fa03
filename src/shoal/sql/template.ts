import type { Node } from './ast-node.js';
import { parseText } from './polyglot.js';

const cache = new Map<string, Node[] | null>();

/**
 * Parse trusted template text (PostgreSQL) once per process and hand out fresh copies: policy
 * predicates and cast shapes are parsed on every plan otherwise, and a WASM parse costs more
 * than the rest of governance. Returns undefined when the text does not parse.
 */
export function parseTemplate(text: string): Node[] | undefined {
  let hit = cache.get(text);
  if (hit === undefined) {
    const r = parseText(text, 'postgres');
    hit = r.ok ? r.statements : null;
    if (cache.size > 10_000) cache.clear();
    cache.set(text, hit);
  }
  return hit === null ? undefined : structuredClone(hit);
}
