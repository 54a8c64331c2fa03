/**
 * Keys for tables filed by text (issue 13: a reader linear in its input).
 *
 * V8 hashes a string of more than 16,383 UTF-16 units by its length alone: a JS Map or Set holding
 * many distinct long texts of one length keeps them all in one bucket and compares each new text
 * against every one already there, which is quadratic in the input (1,000 strings of 20k
 * characters, 20 MB, took 6 s to read). So every table keyed by a text that can come from input
 * files a text of `LONG_TEXT` units or more under a `LongText` object instead, found by the text's
 * digest (SHA-256 under a key drawn per process, so input cannot aim at collisions) and confirmed
 * by comparing the texts: a collision costs a comparison, never a merge of two different texts.
 * Shorter texts are their own keys (V8 hashes all of their content).
 */
import { createHash, randomBytes } from 'node:crypto';

/** From this length on a text is keyed by digest (well under V8's 16,384, which could change). */
export const LONG_TEXT = 1024;

/** The per-process key of every digest of the EDN modules (`structure.ts` uses it too). */
export const digestKey = randomBytes(8);

/** Digests are reduced modulo this (2⁵³; tests narrow it to force collisions). */
let digestModulus = 2 ** 53;

/**
 * Tests only: keep `bits` bits of every digest from now on (0: every digest collides), to show that
 * order, duplicate detection and text tables never rely on a digest. Digests already cached keep
 * their width.
 */
export function narrowDigests(bits: number): void {
  digestModulus = 2 ** Math.min(53, Math.max(0, Math.floor(bits)));
}

/** A 53-bit value reduced to the current digest width. */
export const reduceDigest = (d: number): number => d % digestModulus;

/** The keyed SHA-256 digest of a text, as a 53-bit number (native: about ten times faster than JS). */
export function nativeTextDigest(text: string): number {
  const d = createHash('sha256').update(digestKey).update(text).digest();
  return reduceDigest(d.readUIntLE(0, 6) + (d[6]! & 0x1f) * 2 ** 48);
}

/** The key of a long text in one `TextKeys` table (one object per distinct text). */
export class LongText {
  constructor(
    readonly text: string,
    /** The digest slot it is filed under in its table. */
    readonly slot: number,
  ) {}
}

export type TextKey = string | LongText;

/** The keys of one table: a short text is its own key; a long text has one `LongText` per table. */
export class TextKeys {
  /** Digest (low 30 bits: a small integer) → the long texts filed under it (made on first use). */
  private byDigest: Map<number, LongText | LongText[]> | undefined;

  /** The key of `text`, made on first sight. */
  key(text: string): TextKey {
    if (text.length < LONG_TEXT) return text;
    const d = nativeTextDigest(text) % 0x40000000;
    this.byDigest ??= new Map();
    const b = this.byDigest.get(d);
    if (b === undefined) {
      const k = new LongText(text, d);
      this.byDigest.set(d, k);
      return k;
    }
    if (b instanceof LongText) {
      if (b.text === text) return b;
      const k = new LongText(text, d);
      this.byDigest.set(d, [b, k]);
      return k;
    }
    for (const c of b) if (c.text === text) return c;
    const k = new LongText(text, d);
    b.push(k);
    return k;
  }

  /** The key of `text` if this table has one (a short text always does). */
  find(text: string): TextKey | undefined {
    if (text.length < LONG_TEXT) return text;
    if (this.byDigest === undefined) return undefined;
    const b = this.byDigest.get(nativeTextDigest(text) % 0x40000000);
    if (b === undefined) return undefined;
    if (b instanceof LongText) return b.text === text ? b : undefined;
    for (const c of b) if (c.text === text) return c;
    return undefined;
  }

  /** Forget `k` (this very object: a later key for the same text is another one). */
  drop(k: LongText): void {
    const t = this.byDigest;
    const d = k.slot;
    const b = t?.get(d);
    if (t === undefined || b === undefined) return;
    if (b === k) t.delete(d);
    else if (Array.isArray(b)) {
      const rest = b.filter((c) => c !== k);
      if (rest.length === 0) t.delete(d);
      else t.set(d, rest.length === 1 ? rest[0]! : rest);
    }
  }
}
