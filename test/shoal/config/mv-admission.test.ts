import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkConfigText } from '../../../src/shoal/check/load-config.js';
import { makeColumn, makeTable } from '../../../src/shoal/config/model.js';
import { openRegistry } from '../../../src/shoal/registry/open-registry.js';

// The MV determinism check runs on every registration path: config load, the registry's own
// mutations (which the admin API goes through), each on the parsed AST, failing closed.
const config = (consistency: string, viewSql: string): string => `domains: [{id: d}]
sources: [{id: f, type: csv, path: f.csv}]
tables:
  - {source_id: f, domain_id: d, table: t, columns: [{name: id, data_type: integer}, {name: at, data_type: timestamp}]}
  - source_id: __derived__
    domain_id: d
    table: recent
    materialize: true
    mv_consistency: ${consistency}
    view_sql: "${viewSql}"
    columns: [{name: id}]
`;

const NOW = 'SELECT id FROM f.default.t WHERE at > now()';
const LIMIT_UNORDERED = 'SELECT id FROM f.default.t LIMIT 5';
const DETERMINISTIC = 'SELECT id, count(*) AS n FROM f.default.t GROUP BY id';

describe('MV admission at config load', () => {
  it.each([NOW, LIMIT_UNORDERED])('a distributed MV that is not deterministic is rejected with the reason and line: %s', (sql) => {
    const r = checkConfigText(config('distributed', sql));
    expect(r.ok).toBe(false);
    const e = r.errors.find((x) => x.code === 'CONFIG_MV_REJECTED');
    expect(e?.path).toBe('tables[1].view_sql');
    expect(e?.line).toBe(10);
    expect(e?.message).toMatch(/deterministic/);
  });

  it('a shared MV with the same SQL is admitted, with a warning naming why', () => {
    const r = checkConfigText(config('shared', NOW));
    expect(r.ok).toBe(true);
    expect(r.warnings.find((w) => w.code === 'CONFIG_MV_NONDETERMINISTIC')?.path).toBe('tables[1].view_sql');
  });

  it('a deterministic view is admitted by both tiers without a warning', () => {
    for (const tier of ['shared', 'distributed']) {
      const r = checkConfigText(config(tier, DETERMINISTIC));
      expect(r.ok).toBe(true);
      expect(r.warnings.some((w) => w.code === 'CONFIG_MV_NONDETERMINISTIC')).toBe(false);
    }
  });

  it('view_sql that does not parse is admitted by no tier (fail closed)', () => {
    for (const tier of ['shared', 'distributed']) {
      const r = checkConfigText(config(tier, 'SELEC id FRO t'));
      expect(r.errors.some((e) => e.code === 'CONFIG_MV_REJECTED')).toBe(true);
    }
  });
});

describe('MV admission at registration through the registry (the admin API path)', () => {
  it('refuses a distributed non-deterministic MV and leaves the epoch unchanged; admits it as shared', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-mv-admit-'));
    const registry = await openRegistry('sqlite:///r.db', { baseDir: dir });
    try {
      await registry.registerDomain({ id: 'd' });
      await registry.registerSource({ id: 'f', type: 'csv', path: 'f.csv' });
      await registry.registerTable(makeTable({ source_id: 'f', domain_id: 'd', table: 't', columns: [makeColumn({ name: 'id', data_type: 'integer' }), makeColumn({ name: 'at', data_type: 'timestamp' })] }));
      const before = await registry.epoch();
      const mv = (consistency: 'shared' | 'distributed') =>
        makeTable({ source_id: '__derived__', domain_id: 'd', table: 'recent', materialize: true, mv_consistency: consistency, view_sql: NOW, columns: [makeColumn({ name: 'id' })] });
      await expect(registry.registerTable(mv('distributed'))).rejects.toThrow(/deterministic/);
      expect(await registry.epoch()).toBe(before);
      await registry.registerTable(mv('shared'));
      expect(await registry.epoch()).toBe(before + 1);
    } finally {
      await registry.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('derived tables over derived tables at registration through the registry', () => {
  it('an MV over an MV and a view over it are admitted; re-registering the first to read the view (a cycle) is refused and changes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-mv-cycle-'));
    const registry = await openRegistry('sqlite:///r.db', { baseDir: dir });
    try {
      await registry.registerDomain({ id: 'd' });
      await registry.registerSource({ id: 'f', type: 'csv', path: 'f.csv' });
      await registry.registerTable(makeTable({ source_id: 'f', domain_id: 'd', table: 't', columns: [makeColumn({ name: 'id', data_type: 'integer' })] }));
      const derived = (table: string, viewSql: string, materialize: boolean) =>
        makeTable({ source_id: '__derived__', domain_id: 'd', table, materialize, view_sql: viewSql, columns: [makeColumn({ name: 'id' })] });
      await registry.registerTable(derived('a', 'SELECT id FROM f.default.t', true));
      await registry.registerTable(derived('b', 'SELECT id FROM d.a', true));
      await registry.registerTable(derived('v', 'SELECT id FROM d.b', false));
      const before = await registry.epoch();
      await expect(registry.registerTable(derived('a', 'SELECT id FROM d.v', true))).rejects.toMatchObject({ message: expect.stringContaining('d.a reads itself: d.a -> d.v -> d.b -> d.a') });
      expect(await registry.epoch()).toBe(before);
      expect((await registry.snapshot()).catalog.tables.find((t) => t.table === 'a')?.view_sql).toBe('SELECT id FROM f.default.t');
    } finally {
      await registry.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
