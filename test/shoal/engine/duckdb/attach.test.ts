import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { attachConnector, attachDsn } from '../../../../src/shoal/engine/duckdb/connectors/attach.js';
import { catalogEntryFor } from '../../../../src/shoal/engine/catalog-entry.js';
import { DuckDbEngine } from '../../../../src/shoal/engine/duckdb/duckdb-engine.js';
import { ShoalError } from '../../../../src/shoal/errors.js';
import { collect } from './engine-fixtures.js';

const env = { PG_PW: "pa ss'w\\d" };

describe('the ATTACH connector (attach: true)', () => {
  it('generates INSTALL, LOAD and a read-only ATTACH, and a view over the attached table (PostgreSQL)', () => {
    const e = catalogEntryFor(
      { source_id: 'sales-pg', domain_id: 'sales', schema: 'public', table: 'orders' },
      { id: 'sales-pg', type: 'postgresql', host: 'db.internal', port: 5433, database: 'sales', username: 'ro', password: '${env:PG_PW}', attach: true },
    );
    const plan = attachConnector.plan(e, env);
    expect(plan).toEqual({
      extension: 'postgres',
      alias: '_src_sales_pg',
      statements: [
        'INSTALL postgres',
        'LOAD postgres',
        `ATTACH IF NOT EXISTS 'host=db.internal port=5433 dbname=sales user=ro password=''pa ss\\''w\\\\d''' AS "_src_sales_pg" (TYPE postgres, READ_ONLY)`,
      ],
      viewBody: 'SELECT * FROM "_src_sales_pg"."public"."orders"',
    });
  });

  it('uses the MySQL key names, the database as the remote schema, and a SQLite path with schema main', () => {
    const my = catalogEntryFor(
      { source_id: 'shop', domain_id: 'shop', table: 'items' },
      { id: 'shop', type: 'mariadb', host: 'h', database: 'shopdb', username: 'u', attach: true },
    );
    expect(attachDsn(my, {})).toBe('host=h database=shopdb user=u');
    expect(attachConnector.plan(my, {}).viewBody).toBe('SELECT * FROM "_src_shop"."shopdb"."items"');
    const lite = catalogEntryFor({ source_id: 'f', domain_id: 'd', table: 't' }, { id: 'f', type: 'sqlite', path: '/data/x.db', attach: true });
    expect(attachConnector.plan(lite, {}).statements[2]).toBe(`ATTACH IF NOT EXISTS '/data/x.db' AS "_src_f" (TYPE sqlite, READ_ONLY)`);
    expect(attachConnector.plan(lite, {}).viewBody).toBe('SELECT * FROM "_src_f"."main"."t"');
  });

  it('an unset secret variable is a clear error, not an empty password', () => {
    const e = catalogEntryFor({ source_id: 'p', domain_id: 'd', table: 't' }, { id: 'p', type: 'postgresql', password: '${env:NOPE_UNSET}', attach: true });
    expect(() => attachConnector.plan(e, {})).toThrow(ShoalError);
    expect(() => attachConnector.plan(e, {})).toThrow(/NOPE_UNSET/);
  });

  it('when the extension cannot load here, the entry fails with ENGINE_EXTENSION_UNAVAILABLE and other entries still work', async () => {
    // No downloads and an empty extension directory: the extension is certainly not loadable.
    const extensionDirectory = mkdtempSync(join(tmpdir(), 'shoal-ext-'));
    const engine = await DuckDbEngine.create({ installExtensions: false, extensionDirectory });
    try {
      const lite = catalogEntryFor({ source_id: 'f', domain_id: 'd', table: 't' }, { id: 'f', type: 'sqlite', path: '/nonexistent/x.db', attach: true });
      const report = await engine.reconcile([lite]);
      expect(report.failed).toEqual([expect.objectContaining({ entry: 'f.main.t', code: 'ENGINE_EXTENSION_UNAVAILABLE' })]);
      let err: unknown;
      try {
        await collect(engine.execute('SELECT * FROM "f"."main"."t"'));
      } catch (e) {
        err = e;
      }
      expect((err as ShoalError).code).toBe('ENGINE_EXTENSION_UNAVAILABLE');
      expect((err as ShoalError).message).toContain('"sqlite"');
      expect((await collect(engine.execute('SELECT 42::INTEGER'))).rows).toEqual([[42]]);
    } finally {
      await engine.close();
      rmSync(extensionDirectory, { recursive: true, force: true });
    }
  });
});
