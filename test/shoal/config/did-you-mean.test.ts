import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance } from '../../../src/shoal/config/did-you-mean.js';

describe('did you mean', () => {
  it('suggests the nearest known key for typos, nothing for unrelated words', () => {
    const keys = ['mask_pattern', 'mask_replace', 'mask_type', 'visible_to', 'unmasked_to'];
    expect(didYouMean('mask_patern', keys)).toBe('mask_pattern');
    expect(didYouMean('visable_to', keys)).toBe('visible_to');
    expect(didYouMean('Mask_Type', keys)).toBe('mask_type');
    expect(didYouMean('frobnicate', keys)).toBeUndefined();
  });

  it('law: edit distance is zero exactly for equal words, symmetric, and bounded by the longer length', () => {
    const s = fc.string({ maxLength: 8 });
    fc.assert(
      fc.property(s, s, s, (a, b, c) => {
        expect(editDistance(a, a)).toBe(0);
        expect(editDistance(a, b)).toBe(editDistance(b, a));
        expect(editDistance(a, b) === 0).toBe(a === b);
        expect(editDistance(a, c)).toBeLessThanOrEqual(Math.max(a.length, c.length));
      }),
    );
  });
});
