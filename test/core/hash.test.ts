import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { contentId, ID_PATTERN, isContentId, sha256Hex } from '../../src/core/hash.js';

describe('content hashing', () => {
  test('sha256Hex of known vectors', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex(new Uint8Array([0x61, 0x62, 0x63]))).toBe(sha256Hex('abc'));
  });

  test('a string is hashed as its UTF-8 bytes', () => {
    expect(contentId('—')).toBe(contentId(Buffer.from([0xe2, 0x80, 0x94])));
  });

  test('contentId is sha256- plus 64 lower-case hex, and matches ID_PATTERN', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (b) => {
        const id = contentId(b);
        expect(id).toMatch(ID_PATTERN);
        expect(isContentId(id)).toBe(true);
        expect(id).toBe('sha256-' + sha256Hex(b));
      }),
    );
  });

  test('ID_PATTERN accepts nothing else', () => {
    const hex = 'a'.repeat(64);
    expect(isContentId('sha256-' + hex)).toBe(true);
    for (const bad of ['sha256-' + 'A'.repeat(64), 'sha256-' + 'a'.repeat(63), 'sha256-' + 'a'.repeat(65), 'sha512-' + hex, hex, ' sha256-' + hex, 'sha256-' + hex + '\n', 'sha256-deadbeef']) {
      expect(isContentId(bad)).toBe(false);
    }
    expect(isContentId(5)).toBe(false);
  });
});
