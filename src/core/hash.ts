/**
 * Content hashing shared by tik and shoal. One algorithm per store per format version
 * (tik-model.md §1.7): an id is `sha256-` followed by 64 lower-case hex digits.
 */
import { createHash } from 'node:crypto';

/** Every content id matches this, and nothing else is accepted as one. */
export const ID_PATTERN = /^sha256-[0-9a-f]{64}$/;

/** Lower-case hex SHA-256 of bytes (a string is hashed as its UTF-8 encoding). */
export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The content id of bytes (or of a string's UTF-8): `sha256-<hex>`. */
export function contentId(bytes: Uint8Array | string): string {
  return 'sha256-' + sha256Hex(bytes);
}

/** True if `s` is a well-formed content id. */
export function isContentId(s: unknown): s is string {
  return typeof s === 'string' && ID_PATTERN.test(s);
}
