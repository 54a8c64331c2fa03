/**
 * The relation body of cached rows (hot-values.ts) against a real DuckDB engine: for random rows
 * of every cacheable type, binding the body gives back the same column types and the same cells
 * as the live relation (decimals exact, timestamps, dates, NULL, JSON, big integers, doubles).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VALUES_MAX_ROWS, hotRelationBody, hotRelationName, isHotCacheableType, uncacheableCell } from '../../../src/shoal/cache/hot-values.js';
import { DuckDbEngine } from '../../../src/shoal/engine/duckdb/duckdb-engine.js';
import type { Cell, ColumnInfo } from '../../../src/shoal/engine/engine.js';

const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** [DuckDB type, arbitrary SQL literal text of a value of that type]. */
const TYPES: readonly (readonly [string, fc.Arbitrary<string>])[] = [
  ['INTEGER', fc.integer().map(String)],
  ['BIGINT', fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String)],
  ['HUGEINT', fc.bigInt({ min: -(2n ** 120n), max: 2n ** 120n }).map(String)],
  ['SMALLINT', fc.integer({ min: -32768, max: 32767 }).map(String)],
  ['DECIMAL(12,2)', fc.tuple(fc.integer({ min: -9_999_999_999, max: 9_999_999_999 }), fc.integer({ min: 0, max: 99 })).map(([a, b]) => q(`${a}.${pad(b)}`))],
  ['DECIMAL(38,10)', fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 27n }), fc.integer({ min: 0, max: 9_999_999 })).map(([a, b]) => q(`-${a}.${pad(b, 10)}`))],
  ['DOUBLE', fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => q(String(d)))],
  ['DOUBLE', fc.constantFrom("'NaN'", "'Infinity'", "'-Infinity'")],
  ['FLOAT', fc.float({ noNaN: true, noDefaultInfinity: true }).map((d) => q(String(d)))],
  ['BOOLEAN', fc.boolean().map(String)],
  ['VARCHAR', fc.string({ unit: 'binary' }).filter((s) => !s.includes('\u0000')).map(q)],
  ['VARCHAR', fc.constantFrom("it's", "'); DROP TABLE x; --", '\\x41', "E'\\''", '"quoted"', '$$dollar$$', '').map(q)],
  ['DATE', fc.tuple(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 })).map(([y, m, d]) => q(`${pad(y, 4)}-${pad(m)}-${pad(d)}`))],
  ['TIMESTAMP', fc.tuple(fc.integer({ min: 1900, max: 2200 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }), fc.integer({ min: 0, max: 86_399_999_999 })).map(([y, m, d, us]) => {
    const s = Math.floor(us / 1e6);
    return q(`${y}-${pad(m)}-${pad(d)} ${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}.${pad(us % 1e6, 6)}`);
  })],
  ['TIMESTAMP WITH TIME ZONE', fc.tuple(fc.integer({ min: 1970, max: 2100 }), fc.integer({ min: -12, max: 12 })).map(([y, tz]) => q(`${y}-06-15 12:34:56.5${tz < 0 ? '-' : '+'}${pad(Math.abs(tz))}`))],
  ['TIME', fc.integer({ min: 0, max: 86_399 }).map((s) => q(`${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}.25`))],
  ['INTERVAL', fc.tuple(fc.integer({ min: -100, max: 100 }), fc.integer({ min: -40, max: 40 }), fc.integer({ min: -1e9, max: 1e9 })).map(([mo, d, us]) => q(`${mo} months ${d} days ${us} microseconds`))],
  ['UUID', fc.uuid().map(q)],
  ['JSON', fc.json().map(q)],
];

async function run(engine: DuckDbEngine, sql: string): Promise<{ columns: readonly ColumnInfo[]; rows: Cell[][] }> {
  let columns: readonly ColumnInfo[] = [];
  const rows: Cell[][] = [];
  for await (const b of engine.execute(sql)) {
    columns = b.columns;
    rows.push(...b.rows.map((r) => [...r]));
  }
  return { columns, rows };
}

describe('hot relation bodies', () => {
  let engine: DuckDbEngine;
  beforeAll(async () => {
    engine = await DuckDbEngine.create({});
  });
  afterAll(async () => {
    await engine?.close();
  });

  const tableArb = fc.array(fc.integer({ min: 0, max: TYPES.length - 1 }), { minLength: 1, maxLength: 5 }).chain((idx) =>
    fc.array(fc.tuple(...idx.map((i) => fc.option(TYPES[i]![1], { freq: 5 }))), { minLength: 0, maxLength: 6 }).map((rows) => ({ types: idx.map((i) => TYPES[i]![0]), rows })),
  );

  it('law: a bound body has the live relation\'s column types and cells, for every cacheable type, in both forms', async () => {
    await fc.assert(
      fc.asyncProperty(tableArb, fc.constantFrom('values' as const, 'json' as const), async ({ types, rows }, form) => {
        const names = types.map((_, i) => `col ${i}"x`); // names that need quoting
        const select = (r: readonly (string | null)[]) => `SELECT ${types.map((t, i) => `CAST(${r[i] ?? 'NULL'} AS ${t}) AS "${names[i]!.replace(/"/g, '""')}"`).join(', ')}`;
        const liveSql = rows.length === 0 ? `${select(types.map(() => null))} WHERE false` : rows.map((r) => select(r)).join(' UNION ALL ');
        const live = await run(engine, `SELECT * FROM (${liveSql}) AS t`);
        const columns = live.columns.length ? live.columns : types.map((t, i) => ({ name: names[i]!, type: t }));
        for (const c of columns) expect(isHotCacheableType(c.type)).toBe(true);
        for (const r of live.rows) r.forEach((cell, i) => expect(uncacheableCell(cell, columns[i]!.type)).toBeUndefined());
        const bound = await run(engine, `WITH ${hotRelationName('a.b')} AS (${hotRelationBody(columns, live.rows, form)}) SELECT * FROM ${hotRelationName('a.b')}`);
        if (live.rows.length > 0) expect(bound.columns).toEqual(live.columns);
        const canon = (rs: Cell[][]) => rs.map((r) => JSON.stringify(r)).sort();
        expect(canon(bound.rows)).toEqual(canon(live.rows));
        // equality semantics: every bound row joins its live row on all columns
        if (live.rows.length > 0 && types.every((t) => t !== 'JSON')) {
          const on = columns.map((c) => `a."${c.name.replace(/"/g, '""')}" IS NOT DISTINCT FROM b."${c.name.replace(/"/g, '""')}"`).join(' AND ');
          const j = await run(engine, `SELECT count(*) FROM (SELECT DISTINCT * FROM (${liveSql})) a JOIN (SELECT DISTINCT * FROM (${hotRelationBody(columns, live.rows, form)})) b ON ${on}`);
          const distinct = await run(engine, `SELECT count(*) FROM (SELECT DISTINCT * FROM (${liveSql}))`);
          expect(j.rows[0]![0]).toEqual(distinct.rows[0]![0]);
        }
      }),
      { numRuns: 250 },
    );
  }, 120_000);

  it('tables past VALUES_MAX_ROWS use the single-literal form, with the same answer', async () => {
    const columns = [{ name: 'id', type: 'BIGINT' }, { name: 'amount', type: 'DECIMAL(12,2)' }, { name: 'note', type: 'VARCHAR' }];
    const rows: Cell[][] = Array.from({ length: VALUES_MAX_ROWS + 1 }, (_, i) => [String(i), `${i}.5${i % 10}`, i % 7 === 0 ? null : `it's ${i}`]);
    const body = hotRelationBody(columns, rows);
    expect(body).not.toContain('VALUES');
    expect(hotRelationBody(columns, rows.slice(0, VALUES_MAX_ROWS))).toContain('VALUES');
    const a = await run(engine, `SELECT * FROM (${body}) AS v`);
    const b = await run(engine, `SELECT * FROM (${hotRelationBody(columns, rows, 'values')}) AS v`);
    const canon = (rs: Cell[][]) => rs.map((r) => JSON.stringify(r)).sort();
    expect(canon(a.rows)).toEqual(canon(rows));
    expect(canon(b.rows)).toEqual(canon(rows));
    expect(a.columns).toEqual(columns);
  });

  it('an empty table keeps its column types', async () => {
    const columns = [{ name: 'd', type: 'DECIMAL(12,2)' }, { name: 't', type: 'TIMESTAMP' }];
    const r = await run(engine, `SELECT * FROM (${hotRelationBody(columns, [])}) AS v`);
    expect(r.rows).toEqual([]);
    const typed = await run(engine, `SELECT typeof(d) AS a, typeof(t) AS b FROM (${hotRelationBody(columns, [])}) AS v UNION ALL SELECT 'x', 'y'`);
    expect(typed.rows).toEqual([['x', 'y']]);
    const described = await run(engine, `SELECT column_type FROM (DESCRIBE SELECT * FROM (${hotRelationBody(columns, [])}) AS v)`);
    expect(described.rows.map((x) => x[0])).toEqual(['DECIMAL(12,2)', 'TIMESTAMP']);
  });

  it('nested types and NUL characters are not cacheable (such tables are served live)', () => {
    expect(isHotCacheableType('INTEGER[]')).toBe(false);
    expect(isHotCacheableType('STRUCT(a INTEGER)')).toBe(false);
    expect(isHotCacheableType('MAP(VARCHAR, INTEGER)')).toBe(false);
    // a BLOB cell's text form is ambiguous (a lone backslash byte reads as an escape): served live
    expect(isHotCacheableType('BLOB')).toBe(false);
    expect(isHotCacheableType('DECIMAL(12,2)')).toBe(true);
    expect(uncacheableCell('a\u0000b', 'VARCHAR')).toBeDefined();
    expect(uncacheableCell([1, 2], 'VARCHAR')).toBeDefined();
  });

  it('relation names are plain identifiers, distinct per table', () => {
    expect(hotRelationName('sales.customers')).toMatch(/^__shoal_hot_[A-Za-z0-9_]+$/);
    expect(hotRelationName('sales.customers')).not.toBe(hotRelationName('sales.customers_'));
  });
});
