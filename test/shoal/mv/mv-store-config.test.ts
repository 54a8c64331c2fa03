import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { SnapshotStore } from '../../../src/shoal/mv/snapshot-store.js';
import { ShoalError } from '../../../src/shoal/errors.js';

describe('a materialize_store_url that is not a directory', () => {
  let dir: string;
  let instance: ShoalInstance;
  const errors: unknown[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-mv-store-cfg-'));
    writeFileSync(join(dir, 'orders.csv'), 'id,region\n1,eu\n');
    writeFileSync(join(dir, 'shoal.yaml'), `
materialize_store_url: postgresql://db.example/mat
domains: [{id: sales}]
sources: [{id: orders-csv, type: csv, path: orders.csv}]
tables:
  - {source_id: orders-csv, domain_id: sales, table: orders, columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}]}
  - {source_id: __derived__, domain_id: sales, table: regions, materialize: true, view_sql: 'SELECT DISTINCT region FROM "orders_csv"."default"."orders"', columns: [{name: region, data_type: varchar}]}
roles: [{id: admin, capabilities: [admin], domain_access: ["*"]}]
`);
    instance = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'shoal.yaml') }).config, baseDir: dir, mv: { tickMs: 0 }, onError: (e) => errors.push(e) });
  });
  afterAll(async () => {
    await instance?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('does not stop the instance: the error is reported, MVs are served live, and a refresh fails saying why', async () => {
    expect(errors.map((e) => (e as ShoalError).code)).toContain('MV_STORE_URL');
    const r = await instance.query({ sql: 'SELECT region FROM sales.regions', role: 'admin', vars: {} }, new AbortController().signal);
    expect(r.headers?.['x-shoal-mv']).toBe('sales.regions=live');
    const refreshed = await instance.mvs!.refresh('sales.regions');
    expect(refreshed).toMatchObject({ outcome: 'failed' });
    expect((refreshed as { error: string }).error).toContain('is not a directory');
    expect((await instance.mvs!.row('sales.regions'))?.snapshotId).toBeNull();
  });

  it('a refusing store lists nothing and refuses every write', async () => {
    const store = SnapshotStore.refusing(new ShoalError('MV_STORE_URL', 'no store'));
    expect(await store.list()).toEqual([]);
    await expect(store.write(store.newSnapshotId('m'), async () => undefined)).rejects.toMatchObject({ code: 'MV_STORE_URL' });
  });
});
