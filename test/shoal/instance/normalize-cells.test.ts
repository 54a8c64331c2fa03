import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cellClass, normalizeNumber, numberClassOfSourceColumn, numberClassOfType } from '../../../src/shoal/instance/normalize-cells.js';

describe('one wire form for numbers across routes', () => {
  it('classifies engine and declared types', () => {
    expect(numberClassOfType('BIGINT')).toBe('integer');
    expect(numberClassOfType('HUGEINT')).toBe('integer');
    expect(numberClassOfType('DECIMAL(10,2)')).toBe('decimal');
    expect(numberClassOfType('numeric')).toBe('decimal');
    expect(numberClassOfType('double')).toBe('float');
    expect(numberClassOfType('REAL')).toBe('float');
    expect(numberClassOfType('VARCHAR')).toBe('other');
    expect(numberClassOfSourceColumn({ driver: 'postgresql', name: 'n', oid: 20, typmod: -1 })).toBe('integer');
    expect(numberClassOfSourceColumn({ driver: 'postgresql', name: 'n', oid: 1700, typmod: -1 })).toBe('decimal');
    expect(numberClassOfSourceColumn({ driver: 'postgresql', name: 'n', oid: 701, typmod: -1 })).toBe('float');
    expect(numberClassOfSourceColumn({ driver: 'mysql', name: 'n', mysqlType: 246, length: 10, decimals: 2, unsigned: false, binary: false })).toBe('decimal');
    expect(numberClassOfSourceColumn({ driver: 'sqlite', name: 'n', declared: null })).toBe('other');
  });

  it('integers fit → numbers; too big → exact text', () => {
    expect(normalizeNumber('42', 'integer')).toBe(42);
    expect(normalizeNumber(7n, 'integer')).toBe(7);
    expect(normalizeNumber('9007199254740993', 'integer')).toBe('9007199254740993');
    expect(normalizeNumber('-0012', 'integer')).toBe(-12);
  });

  it('decimals are decimal text that keeps its scale (as PostgreSQL prints it, as Trino sends it)', () => {
    expect(normalizeNumber('851.50', 'decimal')).toBe('851.50');
    expect(normalizeNumber('0.00', 'decimal')).toBe('0.00');
    expect(normalizeNumber('-0.50', 'decimal')).toBe('-0.50');
    expect(normalizeNumber('+007.10', 'decimal')).toBe('7.10');
    expect(normalizeNumber('12345678901234567890.12', 'decimal')).toBe('12345678901234567890.12');
    expect(normalizeNumber(7n, 'decimal')).toBe('7');
    // a double holding a declared numeric(12,2) (SQLite REAL) prints with the declared scale
    expect(normalizeNumber(851.5, cellClass('numeric(12,2)', 'float'))).toBe('851.50');
    expect(normalizeNumber('851.5', cellClass('numeric(12,2)', 'decimal'))).toBe('851.50');
    expect(normalizeNumber(851.5, 'decimal')).toBe('851.5');
    expect(normalizeNumber(1e21, 'decimal')).toBe('1000000000000000000000');
  });

  it('floats are JSON numbers', () => {
    expect(normalizeNumber('1.5', 'float')).toBe(1.5);
    expect(normalizeNumber(1.5, 'float')).toBe(1.5);
    expect(normalizeNumber('NaN', 'float')).toBe('NaN');
  });

  it('the reported type decides decimal-ness; the runtime type decides the rest', () => {
    expect(cellClass('numeric(12,2)', 'float')).toEqual({ kind: 'decimal', scale: 2 });
    expect(cellClass('numeric', 'float')).toEqual({ kind: 'decimal' });
    expect(cellClass('double precision', 'float')).toEqual({ kind: 'float' });
    expect(cellClass('integer', 'integer')).toEqual({ kind: 'integer' });
  });

  it('leaves non-numeric columns and NULL alone', () => {
    expect(normalizeNumber('007', 'other')).toBe('007');
    expect(normalizeNumber(null, 'integer')).toBeNull();
    expect(normalizeNumber('abc', 'decimal')).toBe('abc');
  });

  it('the text and number forms of one decimal of declared scale normalise to the same text, with the scale (route parity)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }), fc.integer({ min: 0, max: 4 }), (units, scale) => {
        const text = (units / 10 ** scale).toFixed(scale);
        const declared = cellClass(`numeric(12,${scale})`, 'float');
        expect(normalizeNumber(text, declared)).toBe(text.startsWith('-0.') && /^-0\.0*$/.test(text) ? text.slice(1) : text);
        expect(normalizeNumber(Number(text), declared)).toEqual(normalizeNumber(text, declared));
      }),
    );
  });
});
