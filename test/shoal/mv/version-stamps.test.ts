import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type InputSignal,
  type InputSource,
  definitionVersion,
  fileSignal,
  gatherInputSignals,
  inputToken,
  refreshVersions,
  resolveInputVersion,
  tikStoreSignal,
  watermarkSignal,
} from '../../../src/shoal/mv/version-stamps.js';

const sig = (kind: InputSignal['kind'], value: string): InputSignal => ({ kind, value });

describe('definition version', () => {
  const base = { sql: 'SELECT a FROM t', sourceTables: ['t', 'u'], joinPattern: { left_table: 't', right_table: 'u' } };

  it('is sha256: and 16 hex digits', () => {
    expect(definitionVersion(base)).toMatch(/^sha256:[0-9a-f]{16}$/);
  });

  it('ignores the order of source tables, aggregate columns and join-pattern keys', () => {
    expect(definitionVersion({ ...base, sourceTables: ['u', 't'], joinPattern: { right_table: 'u', left_table: 't' } })).toBe(definitionVersion(base));
    expect(definitionVersion({ ...base, aggregateColumns: ['b', 'a'] })).toBe(definitionVersion({ ...base, aggregateColumns: ['a', 'b'] }));
  });

  it('changes with any defining field', () => {
    const v = definitionVersion(base);
    for (const changed of [
      { ...base, sql: 'SELECT b FROM t' },
      { ...base, sourceTables: ['t'] },
      { ...base, joinPattern: { left_table: 't', right_table: 'v' } },
      { ...base, servesAggregates: true },
      { ...base, aggregateColumns: ['a'] },
    ]) {
      expect(definitionVersion(changed)).not.toBe(v);
    }
  });

  it('law: equal definitions have equal versions, whatever the order of their lists', () => {
    fc.assert(
      fc.property(fc.string(), fc.uniqueArray(fc.string({ minLength: 1 }), { maxLength: 5 }), (sql, tables) => {
        const shuffled = [...tables].reverse();
        expect(definitionVersion({ sql, sourceTables: shuffled })).toBe(definitionVersion({ sql, sourceTables: tables }));
      }),
    );
  });
});

describe('input signals (upstream test_mv_input_signals)', () => {
  const probes = {
    icebergSnapshot: async (t: string) => (t === 'ice' || t === 'both' ? '5551212' : t === 'nullsnap' ? null : Promise.reject(new Error('not iceberg'))),
    maxWatermark: async (t: string) => (t === 'empty' ? null : new Date(Date.UTC(2026, 0, 2, 3, 4, 5))),
    fileStat: async () => ({ size: 1234, mtimeMs: 1_700_000_000_123.7 }),
    fileHash: async () => 'sha256-abc',
    tikStoreDigest: async () => 'digest-42',
  };

  it('iceberg is the strongest signal and wins on the same table; a watermark is used otherwise', async () => {
    const s = await gatherInputSignals(
      [
        { table: 'ice', kind: 'table' },
        { table: 'both', kind: 'table', watermarkColumn: 'updated_at' },
        { table: 'wm', kind: 'table', watermarkColumn: 'updated_at' },
      ],
      probes,
    );
    expect(s.get('ice')).toEqual(sig('iceberg_snapshot', '5551212'));
    expect(s.get('both')).toEqual(sig('iceberg_snapshot', '5551212'));
    expect(s.get('wm')).toEqual(sig('watermark', '2026-01-02T03:04:05.000Z'));
    expect([...s.values()].map((x) => x.kind)).toEqual(['iceberg_snapshot', 'iceberg_snapshot', 'watermark']);
  });

  it('a plain table gives no signal, which resolves to the refresh epoch', async () => {
    const s = await gatherInputSignals([{ table: 'plain', kind: 'table' }], probes);
    expect(s.size).toBe(0);
    expect(resolveInputVersion([...s.values()], 'epoch-7')).toEqual({ value: 'epoch-7', kind: 'refresh_epoch' });
  });

  it('a failing probe is non-fatal and reported; a NULL snapshot or watermark is skipped', async () => {
    const errors: string[] = [];
    const s = await gatherInputSignals(
      [
        { table: 'nullsnap', kind: 'table' },
        { table: 'empty', kind: 'table', watermarkColumn: 'w' },
        { table: 'broken', kind: 'table', watermarkColumn: 'w' },
      ],
      { ...probes, icebergSnapshot: async () => null, maxWatermark: async (t: string) => (t === 'broken' ? Promise.reject(new Error('down')) : null) },
      (t) => errors.push(t),
    );
    expect(s.size).toBe(0);
    expect(errors).toEqual(['broken']);
  });

  it('files give size@mtime or a content hash; tik stores give their digest; "none" gives nothing', async () => {
    const sources: InputSource[] = [
      { table: 'csv', kind: 'file', path: '/x.csv' },
      { table: 'parquet', kind: 'file', path: '/x.parquet', hashContent: true },
      { table: 'tickets', kind: 'tik_store', root: '/store' },
      { table: 'api', kind: 'none' },
    ];
    const s = await gatherInputSignals(sources, probes);
    expect(s.get('csv')).toEqual(sig('file_stat', '1234@1700000000123'));
    expect(s.get('parquet')).toEqual(sig('content_hash', 'sha256-abc'));
    expect(s.get('tickets')).toEqual(sig('tik_store', 'digest-42'));
    expect(s.has('api')).toBe(false);
  });

  it('signal constructors: empty values are no signal', () => {
    expect(watermarkSignal(null)).toBeNull();
    expect(watermarkSignal('')).toBeNull();
    expect(watermarkSignal(42n)).toEqual(sig('watermark', '42'));
    expect(tikStoreSignal('')).toBeNull();
    expect(fileSignal({ size: 0, mtimeMs: 0 })).toEqual(sig('file_stat', '0@0'));
  });
});

describe('input token (upstream test_mv_probe_freshness)', () => {
  it('is kind:value, e.g. iceberg_snapshot:100', () => {
    expect(inputToken(new Map([['t', sig('iceberg_snapshot', '100')]]), ['t'])).toBe('iceberg_snapshot:100');
  });

  it('a partial or empty signal set gives null (refresh by interval only)', () => {
    expect(inputToken(new Map([['t', sig('watermark', '1')]]), ['t', 'u'])).toBeNull();
    expect(inputToken(new Map(), [])).toBeNull();
    expect(inputToken(new Map(), ['t'])).toBeNull();
  });

  it('law: the token does not depend on the order of tables or signals', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(fc.string({ minLength: 1 }), fc.string({ minLength: 1 })), { minLength: 1, maxLength: 6, selector: ([t]) => t }), (pairs) => {
        const a = new Map(pairs.map(([t, v]) => [t, sig('watermark', v)] as const));
        const b = new Map([...pairs].reverse().map(([t, v]) => [t, sig('watermark', v)] as const));
        const tables = pairs.map(([t]) => t);
        expect(inputToken(b, [...tables].reverse())).toBe(inputToken(a, tables));
        expect(inputToken(a, tables)).not.toBeNull();
      }),
    );
  });

  it('refreshVersions pairs the definition version with the token and its weakest kind', () => {
    const def = { sql: 'SELECT 1', sourceTables: ['a', 'b'] };
    const v = refreshVersions(def, new Map([['a', sig('iceberg_snapshot', '9')], ['b', sig('watermark', 'w')]]));
    expect(v).toEqual({ definitionVersion: definitionVersion(def), inputVersion: 'iceberg_snapshot:9;watermark:w', inputVersionKind: 'watermark' });
    expect(refreshVersions(def, new Map([['a', sig('iceberg_snapshot', '9')]]))).toMatchObject({ inputVersion: null, inputVersionKind: null });
  });
});
