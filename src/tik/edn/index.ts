/**
 * The public EDN API of tik: the value model, the strict reader, the canonical writer (format v1),
 * constructors that use the writer as identity, Clojure `=`, and content addressing.
 */
export * from './value.js';
export { readEdn, readEdnBytes, positionOf } from './read.js';
export { emit, emitBytes, emitString, equalityText, MAX_DEPTH } from './emit.js';
export { ednMap, ednSet, ednVector, ednList, ednGet, ednGetIn, uuid } from './construct.js';
export { ednEquals, equalityKey } from './equals.js';
export { contentIdOf } from './content-id.js';
export { prStr } from './pr-str.js';
export { formatInstant, parseInstant } from './instant-text.js';
export { contentId, sha256Hex, ID_PATTERN, isContentId } from '../../core/hash.js';
