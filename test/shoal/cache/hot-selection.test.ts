/** Which tables are hot-table candidates, and with which bound. */
import { describe, expect, it } from 'vitest';
import { hotCandidates } from '../../../src/shoal/cache/hot-selection.js';
import { loadConfig } from '../../../src/shoal/check/load-config.js';

const yaml = (hot: string) => `control_plane: {tenant_url: "sqlite:///registry.db"}
domains: [{id: d}]
sources:
  - {id: s, type: sqlite, path: a.db}
  - {id: other, type: sqlite, path: b.db}
tables:
  - {source_id: s, domain_id: d, table: explicit, hot: true, columns: [{name: id}]}
  - {source_id: s, domain_id: d, table: never, hot: false, columns: [{name: id}]}
  - {source_id: s, domain_id: d, table: facts, columns: [{name: id}, {name: dim_id}]}
  - {source_id: s, domain_id: d, table: dims, columns: [{name: id}]}
  - {source_id: other, domain_id: d, table: elsewhere, columns: [{name: id}]}
  - {source_id: __derived__, domain_id: d, table: view, view_sql: 'SELECT id FROM "s"."default"."dims"', columns: [{name: id}]}
relationships:
  - {id: r1, source_table_id: facts, target_table_id: dims, source_column: dim_id, target_column: id, cardinality: many-to-one}
roles:
  - {id: admin, capabilities: [admin, query_development], domain_access: ["*"]}
hot_tables: {${hot}}
`;

describe('hot-table candidates', () => {
  it('hot: true is explicit, many-to-one targets and other tables are automatic, hot: false and views never', () => {
    const { config } = loadConfig(yaml('auto_threshold: 100, max_rows: 500'));
    const c = hotCandidates(config, config.stateful.hot_tables, (t) => t.source_id !== 'other');
    expect(c.map((x) => [x.key, x.reason, x.maxRows])).toEqual([
      ['d.explicit', 'explicit', 500],
      ['d.facts', 'auto', 100],
      ['d.dims', 'relationship', 500],
    ]);
  });

  it('auto_threshold: 0 leaves only hot: true tables', () => {
    const { config } = loadConfig(yaml('auto_threshold: 0'));
    expect(hotCandidates(config, config.stateful.hot_tables, () => true).map((x) => x.key)).toEqual(['d.explicit']);
  });

  it('the fingerprint changes with the table or its source definition, and only then', () => {
    const a = loadConfig(yaml('auto_threshold: 100')).config;
    const b = loadConfig(yaml('auto_threshold: 100').replace('path: a.db', 'path: c.db')).config;
    const c = loadConfig(yaml('auto_threshold: 100').replace('table: dims, columns: [{name: id}]', 'table: dims, columns: [{name: id}, {name: x}]')).config;
    const fp = (m: typeof a) => Object.fromEntries(hotCandidates(m, m.stateful.hot_tables, () => true).map((x) => [x.key, x.fingerprint]));
    expect(fp(a)).toEqual(fp(loadConfig(yaml('auto_threshold: 100')).config));
    expect(fp(b)['d.explicit']).not.toBe(fp(a)['d.explicit']);
    expect(fp(c)['d.dims']).not.toBe(fp(a)['d.dims']);
    expect(fp(c)['d.explicit']).toBe(fp(a)['d.explicit']);
  });
  it('a table with no change signal is never automatic (PostgreSQL without watermark_column); with one, or hot: true, it is', () => {
    const { config } = loadConfig(`control_plane: {tenant_url: "sqlite:///registry.db"}
domains: [{id: d}]
sources:
  - {id: pg, type: postgresql, host: localhost, database: x, username: u}
  - {id: f, type: csv, path: /data/f.csv}
  - {id: l, type: sqlite, path: /data/l.db}
tables:
  - {source_id: pg, domain_id: d, table: plain, columns: [{name: id}]}
  - {source_id: pg, domain_id: d, table: stamped, watermark_column: updated_at, columns: [{name: id}, {name: updated_at}]}
  - {source_id: pg, domain_id: d, table: pinned, hot: true, columns: [{name: id}]}
  - {source_id: pg, domain_id: d, table: target, columns: [{name: id}]}
  - {source_id: f, domain_id: d, table: f, columns: [{name: id}, {name: t}]}
  - {source_id: l, domain_id: d, table: l, columns: [{name: id}]}
relationships:
  - {id: r1, source_table_id: f, target_table_id: target, source_column: t, target_column: id, cardinality: many-to-one}
roles:
  - {id: admin, capabilities: [admin, query_development], domain_access: ["*"]}
`);
    const c = hotCandidates(config, config.stateful.hot_tables, () => true);
    expect(c.map((x) => [x.key, x.reason, x.signal])).toEqual([
      ['d.stamped', 'auto', { kind: 'watermark', column: 'updated_at' }],
      ['d.pinned', 'explicit', { kind: 'none' }],
      ['d.f', 'auto', { kind: 'files', paths: ['/data/f.csv'] }],
      ['d.l', 'auto', { kind: 'files', paths: ['/data/l.db', '/data/l.db-wal'] }],
    ]);
  });
});
