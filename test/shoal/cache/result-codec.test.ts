import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEntry, encodeRow, entryText } from '../../../src/shoal/cache/result-codec.js';

const leaf = fc.oneof(
  fc.constant(null),
  fc.string(),
  fc.boolean(),
  fc.double(), // NaN, ±Infinity and -0 included
  fc.integer(),
  fc.bigInt(),
  fc.date({ noInvalidDate: true }),
  fc.uint8Array().map((a) => Buffer.from(a)),
  fc.uint8Array(),
  fc.constant(undefined),
);
const cell = fc.letrec((tie) => ({
  cell: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('list'), tie('struct')),
  list: fc.array(tie('cell'), { maxLength: 4 }),
  struct: fc.dictionary(fc.string({ maxLength: 6 }).filter((k) => k !== '__proto__'), tie('cell'), { maxKeys: 4, noNullPrototype: true }),
})).cell;

function roundTrip(rows: unknown[][]) {
  const encoded = rows.map((r) => encodeRow(r));
  const text = entryText({ at: 5, ttlMs: 1000, tables: ['sales.orders'], columns: [{ name: 'a', type: 'BIGINT' }] }, JSON.stringify(encoded));
  return decodeEntry(text);
}

describe('result entry codec', () => {
  it('law: a stored row reads back as the same JS values (bigint, Date, Buffer, bytes, NaN, -0, nested)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(cell, { maxLength: 5 }), { maxLength: 5 }), (rows) => {
        const back = roundTrip(rows);
        expect(back?.rows).toStrictEqual(rows);
        back?.rows.forEach((r, i) => r.forEach((v, j) => {
          const orig = rows[i]![j];
          if (Buffer.isBuffer(orig)) expect(Buffer.isBuffer(v)).toBe(true);
          else if (orig instanceof Uint8Array) expect(Buffer.isBuffer(v)).toBe(false);
          if (typeof orig === 'number') expect(Object.is(v, orig)).toBe(true);
        }));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the metadata', () => {
    expect(roundTrip([[1n]])).toEqual({ at: 5, ttlMs: 1000, tables: ['sales.orders'], columns: [{ name: 'a', type: 'BIGINT' }], rows: [[1n]] });
  });

  it('refuses a cell it cannot store exactly (a class instance, an invalid Date)', () => {
    class Money {
      constructor(readonly cents: number) {}
    }
    expect(encodeRow([1, new Money(3)])).toBeUndefined();
    expect(encodeRow([new Date(Number.NaN)])).toBeUndefined();
    expect(encodeRow([new Map()])).toBeUndefined();
    expect(encodeRow([[1, { a: new Set() }]])).toBeUndefined();
  });

  it('treats text that is not an entry of this format as absent', () => {
    for (const t of ['', 'nope', '{}', '{"v":2,"at":1,"ttlMs":1,"tables":[],"columns":[],"rows":[]}', '{"v":1,"at":1,"ttlMs":1,"tables":[],"columns":[],"rows":[[{"t":"?"}]]}']) {
      expect(decodeEntry(t)).toBeUndefined();
    }
  });
});
