import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeParameter, parameterLiteral } from '../../../src/shoal/pgwire/bind-parameters.js';
import { binaryOf, OID, pgTypeOf } from '../../../src/shoal/pgwire/pg-types.js';
import { PgProtocolError } from '../../../src/shoal/pgwire/pg-protocol-error.js';
import { splitStatements } from '../../../src/shoal/pgwire/sql-text.js';

describe('Bind parameters become literals', () => {
  it('a string parameter is one quoted literal whatever it holds (no statement can be injected)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\0')), (s) => {
        const sql = `SELECT ${parameterLiteral(s, 0)}`;
        expect(splitStatements(sql)).toHaveLength(1);
        expect(sql.slice(7)).toBe(`'${s.replace(/'/g, "''")}'`);
      }),
    );
  });

  it('a typed parameter must have its type: an integer that is not one is refused (22P02)', () => {
    expect(parameterLiteral('-5', OID.int4)).toBe('(-5)');
    expect(parameterLiteral('12.50', OID.numeric)).toBe('12.50');
    expect(parameterLiteral('t', OID.bool)).toBe('TRUE');
    expect(parameterLiteral(null, OID.int4)).toBe('NULL');
    expect(() => parameterLiteral('1; DROP TABLE x', OID.int4)).toThrow(PgProtocolError);
    expect(() => parameterLiteral("a\0b", OID.text)).toThrow(/NUL/);
  });

  it('binary parameters decode to their text: integers, floats, booleans, dates, timestamps', () => {
    const int4 = Buffer.alloc(4);
    int4.writeInt32BE(-123);
    expect(decodeParameter(int4, OID.int4, 1)).toBe('-123');
    const int8 = Buffer.alloc(8);
    int8.writeBigInt64BE(9007199254740993n);
    expect(decodeParameter(int8, OID.int8, 1)).toBe('9007199254740993');
    expect(decodeParameter(Buffer.from([1]), OID.bool, 1)).toBe('t');
    expect(decodeParameter(binaryOf('1990-02-03', pgTypeOf('date')), OID.date, 1)).toBe('1990-02-03');
    expect(decodeParameter(binaryOf('2026-03-04 05:06:07.089+00', pgTypeOf('timestamptz')), OID.timestamptz, 1)).toBe('2026-03-04 05:06:07.089000+00');
    expect(() => decodeParameter(Buffer.alloc(3), OID.int4, 1)).toThrow(PgProtocolError);
  });

  it('numeric binary round-trips any decimal text (as PostgreSQL prints it)', () => {
    const decimal = fc
      .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 12 }))
      .map(([neg, digits, scale]) => {
        const s = digits.toString().padStart(scale + 1, '0');
        const text = scale === 0 ? s : `${s.slice(0, -scale)}.${s.slice(-scale)}`;
        return neg && digits !== 0n ? `-${text}` : text;
      });
    fc.assert(
      fc.property(decimal, (text) => {
        expect(decodeParameter(binaryOf(text, pgTypeOf('numeric')), OID.numeric, 1)).toBe(text);
      }),
    );
    // the example of PostgreSQL's numeric.c: 1234.50 is two base-10000 digits, weight 0, scale 2
    expect([...binaryOf('1234.50', pgTypeOf('numeric(12,2)'))]).toEqual([0, 2, 0, 0, 0, 0, 0, 2, 0x04, 0xd2, 0x13, 0x88]);
  });
});
