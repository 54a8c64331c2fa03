import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  catalogEntries,
  catalogEntryFor,
  catalogName,
  entryFingerprint,
  entryMatches,
  sourceTypeOf,
} from '../../../src/shoal/engine/catalog-entry.js';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalError } from '../../../src/shoal/errors.js';

const EXAMPLE = `
federation_engine: duckdb
domains:
  - {id: sales, description: Sales analytics}
sources:
  - id: sales-pg
    type: postgresql
    host: db.internal
    port: 5432
    database: sales
    username: provisa_ro
    password: \${env:SALES_PG_PASSWORD}
  - id: segments-csv
    type: csv
    path: /data/ref/customer_segments.csv
tables:
  - source_id: sales-pg
    domain_id: sales
    schema: public
    table: orders
    columns:
      - {name: id, data_type: integer}
      - {name: amount, data_type: decimal}
  - source_id: segments-csv
    domain_id: sales
    table: customer_segments
    alias: segments
    columns:
      - {name: customer_id, data_type: integer}
roles:
  - {id: admin, capabilities: [admin, query_development, full_results], domain_access: ["*"]}
`;

describe('catalog entries derived from config', () => {
  it('derives both name forms from the loaded config model, keeping the password an unresolved reference', () => {
    const { config } = loadConfig({ text: EXAMPLE }, { SALES_PG_PASSWORD: 'secret' });
    const entries = catalogEntries(config.tables, config.sources);
    expect(entries.map((e) => [e.key, `${e.domain}.${e.alias}`, e.mechanism, e.remoteSchema])).toEqual([
      ['sales_pg.public.orders', 'sales.orders', 'land', 'public'],
      ['segments_csv.default.customer_segments', 'sales.segments', 'scan', 'default'],
    ]);
    expect(entries[0]?.source.password).toBe('${env:SALES_PG_PASSWORD}');
    expect(JSON.stringify(entries)).not.toContain('secret');
    expect(entries[0]?.columns).toEqual([
      { name: 'id', dataType: 'integer' },
      { name: 'amount', dataType: 'decimal' },
    ]);
  });

  it('maps the default schema to each source type\'s own default at the source', () => {
    const pg = catalogEntryFor({ source_id: 'p', domain_id: 'd', schema: 'default', table: 't' }, { id: 'p', type: 'postgres' });
    const my = catalogEntryFor({ source_id: 'm', domain_id: 'd', schema: 'default', table: 't' }, { id: 'm', type: 'mariadb', database: 'shop' });
    const lite = catalogEntryFor({ source_id: 's', domain_id: 'd', schema: 'anything', table: 't' }, { id: 's', type: 'sqlite', path: 'x.db' });
    expect([pg.schema, pg.remoteSchema, pg.source.type]).toEqual(['default', 'public', 'postgresql']);
    expect([my.schema, my.remoteSchema, my.source.type]).toEqual(['default', 'shop', 'mysql']);
    expect([lite.schema, lite.remoteSchema]).toEqual(['anything', 'main']);
  });

  it('chooses the mechanism: files scan, databases land, attach: true attaches', () => {
    const mech = (type: string, attach?: boolean) =>
      catalogEntryFor({ source_id: 's', domain_id: 'd', table: 't' }, { id: 's', type, attach }).mechanism;
    expect(['csv', 'parquet', 'json'].map((t) => mech(t, true))).toEqual(['scan', 'scan', 'scan']);
    expect(['postgresql', 'mysql', 'sqlite', 'tik'].map((t) => mech(t))).toEqual(['land', 'land', 'land', 'land']);
    expect(['postgresql', 'mysql', 'sqlite', 'tik'].map((t) => mech(t, true))).toEqual(['attach', 'attach', 'attach', 'land']);
  });

  it('rejects an unknown source type, a table of another source, and a dangling source id, with codes', () => {
    expect(() => sourceTypeOf({ id: 'x', type: 'oracle' })).toThrow(ShoalError);
    try {
      sourceTypeOf({ id: 'x', type: 'oracle' });
    } catch (e) {
      expect((e as ShoalError).code).toBe('SOURCE_TYPE_UNSUPPORTED');
      expect((e as ShoalError).where).toBe('sources.x.type');
    }
    expect(() => catalogEntryFor({ source_id: 'a', domain_id: 'd', table: 't' }, { id: 'b', type: 'csv' })).toThrow(/belongs to source "a"/);
    expect(() => catalogEntries([{ source_id: 'nope', domain_id: 'd', table: 't' }], [])).toThrow(/not registered/);
  });

  it('skips governed views (source_id __derived__)', () => {
    expect(catalogEntries([{ source_id: '__derived__', domain_id: 'd', table: 'v' }], [])).toEqual([]);
  });

  it('entries are frozen values', () => {
    const e = catalogEntryFor({ source_id: 's', domain_id: 'd', table: 't', columns: [{ name: 'a' }] }, { id: 's', type: 'csv' });
    expect(Object.isFrozen(e)).toBe(true);
    expect(Object.isFrozen(e.source)).toBe(true);
    expect(Object.isFrozen(e.columns[0])).toBe(true);
  });

  it('law: the fingerprint is equal exactly when the derived entries are deeply equal', () => {
    const ident = fc.stringMatching(/^[a-z][a-z0-9_-]{0,6}$/);
    const arb = fc.record({
      id: ident,
      type: fc.constantFrom('postgresql', 'mysql', 'csv', 'sqlite'),
      host: fc.option(ident, { nil: undefined }),
      table: ident,
      schema: fc.option(ident, { nil: undefined }),
      domain: ident,
      attach: fc.option(fc.boolean(), { nil: undefined }),
    });
    const make = (r: { id: string; type: string; host: string | undefined; table: string; schema: string | undefined; domain: string; attach: boolean | undefined }) =>
      catalogEntryFor({ source_id: r.id, domain_id: r.domain, schema: r.schema, table: r.table }, { id: r.id, type: r.type, host: r.host, attach: r.attach });
    fc.assert(
      fc.property(arb, arb, (a, b) => {
        const ea = make(a);
        const eb = make(b);
        let equal = true;
        try {
          expect(ea).toEqual(eb);
        } catch {
          equal = false;
        }
        expect(entryFingerprint(ea) === entryFingerprint(eb)).toBe(equal);
      }),
    );
  });

  it('catalog names replace - with _ and matching uses source id, schema and table', () => {
    expect(catalogName('sales-pg-2')).toBe('sales_pg_2');
    const e = catalogEntryFor({ source_id: 'a-b', domain_id: 'd', schema: 's', table: 't' }, { id: 'a-b', type: 'csv' });
    expect(entryMatches(e, { sourceId: 'a-b', schema: 's', table: 't' })).toBe(true);
    expect(entryMatches(e, { sourceId: 'a_b', schema: 's', table: 't' })).toBe(false);
  });
});
