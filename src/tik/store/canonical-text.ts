/**
 * Whether a text is canonical EDN (format v1): it reads, and re-emitting what it reads gives the
 * same text. Stores use it to refuse archiving a definition under a hash of non-canonical bytes.
 */
import { emit, readEdn } from '../edn/index.js';

/** Undefined if `text` is canonical; otherwise what is wrong with it. */
export function canonicalTextProblem(text: string): string | undefined {
  if (typeof text !== 'string') return 'not a string';
  let canonical: string;
  try {
    canonical = emit(readEdn(text));
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  if (canonical !== text) return 'the text differs from the canonical emission of its value (layout, comments, key order or a trailing newline)';
  return undefined;
}
