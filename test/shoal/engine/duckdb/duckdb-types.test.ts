import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DuckDBInstance } from '@duckdb/node-api';
import { inferDecimal, mysqlLandingColumn, pgLandingColumn, sqliteLandingColumn } from '../../../../src/shoal/engine/duckdb/duckdb-types.js';
import { landRows } from '../../../../src/shoal/engine/duckdb/landing.js';

const pg = (oid: number, typmod = -1) => pgLandingColumn({ driver: 'postgresql', name: 'c', oid, typmod });
const my = (mysqlType: number, length = 11, decimals = 0, unsigned = false, binary = false) =>
  mysqlLandingColumn({ driver: 'mysql', name: 'c', mysqlType, length, decimals, unsigned, binary });

describe('driver type → DuckDB type', () => {
  it('PostgreSQL: exact integers, numerics from typmod, temporal, JSON, UUID, bytea', () => {
    expect([pg(16), pg(21), pg(23), pg(20), pg(701), pg(700)].map((c) => [c.stage, c.type])).toEqual([
      ['BOOLEAN', 'BOOLEAN'], ['INTEGER', 'SMALLINT'], ['INTEGER', 'INTEGER'], ['VARCHAR', 'BIGINT'], ['DOUBLE', 'DOUBLE'], ['DOUBLE', 'FLOAT'],
    ]);
    // numeric(12,2): typmod = (12 << 16 | 2) + 4
    expect(pg(1700, ((12 << 16) | 2) + 4).type).toBe('DECIMAL(12,2)');
    expect(pg(1700).type).toBe('DECIMAL?');
    expect(pg(1700, ((60 << 16) | 2) + 4).type).toBe('DECIMAL?');
    expect([pg(1082), pg(1114), pg(1184), pg(1186), pg(114), pg(3802), pg(2950), pg(17), pg(999999)].map((c) => c.type)).toEqual([
      'DATE', 'TIMESTAMP', 'TIMESTAMPTZ', 'INTERVAL', 'JSON', 'JSON', 'UUID', 'BLOB', 'VARCHAR',
    ]);
  });

  it('MySQL/MariaDB: TINYINT(1) is BOOLEAN, unsigned widths, DECIMAL precision from the reported length', () => {
    expect(my(1, 1).type).toBe('BOOLEAN');
    expect(my(1, 4).type).toBe('TINYINT');
    expect(my(3, 10, 0, true).type).toBe('UINTEGER');
    expect(my(8, 20).type).toBe('BIGINT');
    expect(my(8, 20, 0, true).type).toBe('UBIGINT');
    expect(my(246, 12, 2).type).toBe('DECIMAL(10,2)');
    expect(my(246, 11, 2, true).type).toBe('DECIMAL(10,2)');
    expect(my(246, 66, 0).type).toBe('DECIMAL?');
    expect([my(10), my(12), my(7), my(11), my(245), my(253), my(252, 0, 0, false, true)].map((c) => c.type)).toEqual([
      'DATE', 'TIMESTAMP', 'TIMESTAMP', 'TIME', 'JSON', 'VARCHAR', 'BLOB',
    ]);
  });

  it('SQLite: the declared type is honoured only when the values agree with it', () => {
    const lite = (declared: string | null, values: unknown[]) => sqliteLandingColumn({ driver: 'sqlite', name: 'c', declared }, values).type;
    expect(lite('INTEGER', [1n, null])).toBe('BIGINT');
    expect(lite('INTEGER', [1n, 'x'])).toBe('VARCHAR');
    expect(lite('BOOLEAN', [0n, 1n])).toBe('BOOLEAN');
    expect(lite('BOOLEAN', [0n, 2n])).toBe('BIGINT');
    expect(lite('DECIMAL(8,3)', [1.5, 2n])).toBe('DECIMAL(8,3)');
    expect(lite('DATETIME', ['2024-01-01 00:00:00'])).toBe('TIMESTAMP');
    expect(lite(null, [1.5])).toBe('DOUBLE');
    expect(lite('VARCHAR(10)', [1n])).toBe('VARCHAR');
  });

  it('SQLite: with no value to disagree (empty or all NULL), the declared type decides', () => {
    const lite = (declared: string | null, values: unknown[]) => sqliteLandingColumn({ driver: 'sqlite', name: 'c', declared }, values).type;
    for (const values of [[], [null, null]]) {
      expect(lite('DATE', values)).toBe('DATE');
      expect(lite('DATETIME', values)).toBe('TIMESTAMP');
      expect(lite('TIMESTAMP', values)).toBe('TIMESTAMP');
      expect(lite('JSON', values)).toBe('JSON');
      expect(lite('BLOB', values)).toBe('BLOB');
      expect(lite('BOOLEAN', values)).toBe('BOOLEAN');
      expect(lite('DECIMAL(8,3)', values)).toBe('DECIMAL(8,3)');
      expect(lite('INTEGER', values)).toBe('BIGINT');
      expect(lite('TEXT', values)).toBe('VARCHAR');
      expect(lite('REAL', values)).toBe('DOUBLE');
    }
  });
});

describe('decimal inference', () => {
  it('picks the narrowest decimal that holds every value, DOUBLE for NaN, VARCHAR past 38 digits', () => {
    expect(inferDecimal(['1.5', '-123.25', null])).toBe('DECIMAL(5,2)');
    expect(inferDecimal(['0.001'])).toBe('DECIMAL(3,3)');
    expect(inferDecimal(['NaN'])).toBe('DOUBLE');
    expect(inferDecimal(['1' + '0'.repeat(40)])).toBe('VARCHAR');
    expect(inferDecimal([])).toBe('DECIMAL(1,0)');
  });

  it('law: landing decimal text through the inferred type gives back the same number, exactly', async () => {
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    try {
      const dec = fc
        .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.nat({ max: 12 }))
        .map(([neg, digits, scale]) => {
          const s = digits.toString().padStart(scale + 1, '0');
          const text = scale === 0 ? s : `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
          return neg ? `-${text}` : text;
        });
      await fc.assert(
        fc.asyncProperty(fc.array(dec, { minLength: 1, maxLength: 8 }), async (values) => {
          const cols = await landRows(conn, 't', 'src', [{ name: 'v', stage: 'VARCHAR', type: 'DECIMAL?' }], values.map((v) => [v]));
          expect(cols[0]?.type).toBe(inferDecimal(values));
          const back = (await conn.runAndReadAll('SELECT v::VARCHAR FROM temp.main.t')).getRows().map((r) => r[0] as string);
          const norm = (x: string) => {
            const neg = x.startsWith('-');
            const [i = '', f = ''] = x.replace('-', '').split('.');
            const int = i.replace(/^0+/, '') || '0';
            const frac = f.replace(/0+$/, '');
            const body = frac === '' ? int : `${int}.${frac}`;
            return neg && body !== '0' ? `-${body}` : body;
          };
          expect(back.map(norm)).toEqual(values.map(norm));
        }),
        { numRuns: 60 },
      );
    } finally {
      conn.closeSync();
      inst.closeSync();
    }
  });
});
