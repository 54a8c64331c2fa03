import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeNumber, numberClassOfSourceColumn, numberClassOfType } from '../../../src/shoal/instance/normalize-cells.js';

describe('one wire form for numbers across routes', () => {
  it('classifies engine and declared types', () => {
    expect(numberClassOfType('BIGINT')).toBe('integer');
    expect(numberClassOfType('HUGEINT')).toBe('integer');
    expect(numberClassOfType('DECIMAL(10,2)')).toBe('numeric');
    expect(numberClassOfType('double')).toBe('numeric');
    expect(numberClassOfType('VARCHAR')).toBe('other');
    expect(numberClassOfSourceColumn({ driver: 'postgresql', name: 'n', oid: 20, typmod: -1 })).toBe('integer');
    expect(numberClassOfSourceColumn({ driver: 'postgresql', name: 'n', oid: 1700, typmod: -1 })).toBe('numeric');
    expect(numberClassOfSourceColumn({ driver: 'mysql', name: 'n', mysqlType: 246, length: 10, decimals: 2, unsigned: false, binary: false })).toBe('numeric');
    expect(numberClassOfSourceColumn({ driver: 'sqlite', name: 'n', declared: null })).toBe('other');
  });

  it('integers fit → numbers; too big → exact text', () => {
    expect(normalizeNumber('42', 'integer')).toBe(42);
    expect(normalizeNumber(7n, 'integer')).toBe(7);
    expect(normalizeNumber('9007199254740993', 'integer')).toBe('9007199254740993');
    expect(normalizeNumber('-0012', 'integer')).toBe(-12);
  });

  it('decimals → numbers only when lossless', () => {
    expect(normalizeNumber('10.50', 'numeric')).toBe(10.5);
    expect(normalizeNumber('0.00', 'numeric')).toBe(0);
    expect(normalizeNumber('12345678901234567890.12', 'numeric')).toBe('12345678901234567890.12');
    expect(normalizeNumber(10.5, 'numeric')).toBe(10.5);
  });

  it('leaves non-numeric columns and NULL alone', () => {
    expect(normalizeNumber('007', 'other')).toBe('007');
    expect(normalizeNumber(null, 'integer')).toBeNull();
    expect(normalizeNumber('abc', 'numeric')).toBe('abc');
  });

  it('the text and number forms of one decimal value normalise alike (route parity)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }), fc.integer({ min: 0, max: 4 }), (units, scale) => {
        const text = (units / 10 ** scale).toFixed(scale);
        expect(normalizeNumber(text, 'numeric')).toEqual(normalizeNumber(Number(text), 'numeric'));
      }),
    );
  });
});
