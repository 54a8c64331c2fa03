import { contentId } from '../../core/hash.js';
import { emit } from './emit.js';
import type { EdnValue } from './value.js';

/** The content address of a value: `sha256-` + hex SHA-256 of the UTF-8 of `emit(v)` (§1.7). */
export function contentIdOf(v: EdnValue): string {
  return contentId(emit(v));
}
