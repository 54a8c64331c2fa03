import { describe, expect, it } from 'vitest';
import { likePattern, regexPattern } from '../../../src/shoal/pgwire/name-pattern.js';

describe('catalog name patterns, matched without a regex engine', () => {
  it("psql's anchored patterns: literals, escapes, '.', '.*' and character sets", () => {
    expect(regexPattern('^(orders)$').matches('orders')).toBe(true);
    expect(regexPattern('^(orders)$').matches('orders2')).toBe(false);
    expect(regexPattern('^(ord.*)$').matches('ord')).toBe(true);
    expect(regexPattern('^(o.d[eE]rs)$').matches('oxdErs')).toBe(true);
    expect(regexPattern('^(a\\.b)$').matches('a.b')).toBe(true);
    expect(regexPattern('^(a\\.b)$').matches('axb')).toBe(false);
    expect(regexPattern('^(zoë.*)$').matches('zoëtrope')).toBe(true);
  });

  it('a pattern with nested repetition, alternation or groups matches nothing (and costs nothing)', () => {
    const evil = regexPattern('^((a+)+)$');
    expect(evil.matches(`${'a'.repeat(5000)}!`)).toBe(false);
    expect(regexPattern('^(a|b)$').matches('a')).toBe(false);
    expect(regexPattern('orders').matches('orders')).toBe(false);
  });

  it("LIKE patterns: '%', '_' and escapes; many '%' stay linear in the name", () => {
    expect(likePattern('ord%').matches('orders')).toBe(true);
    expect(likePattern('o_ders').matches('orders')).toBe(true);
    expect(likePattern('a\\%').matches('a%')).toBe(true);
    expect(likePattern('a\\%').matches('ab')).toBe(false);
    expect(likePattern('%'.repeat(400) + 'b').matches('a'.repeat(5000))).toBe(false);
  });
});
