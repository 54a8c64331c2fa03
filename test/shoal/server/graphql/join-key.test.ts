import { describe, expect, it } from 'vitest';
import { joinKey } from '../../../../src/shoal/server/graphql/join-key.js';

describe('joinKey', () => {
  it('matches numbers as SQL compares them: 5, 5n, "5" and "5.00" of a numeric join column are one key', () => {
    expect(joinKey('5.00', true)).toBe(joinKey(5, true));
    expect(joinKey(5n, true)).toBe(joinKey(5, true));
    expect(joinKey('-0.50', true)).toBe(joinKey(-0.5, true));
    expect(joinKey('10', true)).not.toBe(joinKey('1', true));
  });

  it('keeps text as written when the join column is not numeric', () => {
    expect(joinKey('5.00', false)).not.toBe(joinKey('5', false));
    expect(joinKey('Ann', false)).toBe('Ann');
  });
});
