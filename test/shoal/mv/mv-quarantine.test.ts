/**
 * A published MV snapshot that fails to read (truncated, overwritten) is quarantined — moved aside
 * in the store, so no instance serves it — the MV is served live meanwhile (the same rows, the
 * header says `live`), and it is rebuilt although its inputs did not change.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';

const CONFIG = `
domains: [{id: sales}]
sources: [{id: orders-csv, type: csv, path: orders.csv}]
tables:
  - source_id: orders-csv
    domain_id: sales
    table: orders
    columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}, {name: amount, data_type: integer}]
  - source_id: __derived__
    domain_id: sales
    table: by_region
    materialize: true
    view_sql: 'SELECT region, sum(amount) AS total FROM "orders_csv"."default"."orders" GROUP BY region'
    columns: [{name: region, data_type: varchar}, {name: total, data_type: bigint}]
roles:
  - {id: admin, capabilities: [admin, full_results], domain_access: ["*"]}
`;
const SQL = 'SELECT region, total FROM sales.by_region ORDER BY region';

async function eventually<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never: ${what}`);
}

describe('an unreadable MV snapshot', () => {
  let dir: string;
  let instance: ShoalInstance;
  const errors: unknown[] = [];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-mv-quarantine-'));
    writeFileSync(join(dir, 'orders.csv'), 'id,region,amount\n1,eu,10\n2,us,20\n3,eu,30\n');
    writeFileSync(join(dir, 'shoal.yaml'), CONFIG);
    instance = await ShoalInstance.start({
      config: loadConfig({ path: join(dir, 'shoal.yaml') }).config,
      baseDir: dir,
      mv: { tickMs: 0, resolveMaxAgeMs: 0 },
      resultCache: false,
      onError: (e) => errors.push(e),
    });
  }, 120_000);
  afterEach(async () => {
    await instance?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const read = async () => {
    const r = await instance.query({ sql: SQL, role: 'admin', vars: {} }, new AbortController().signal);
    const rows: unknown[][] = [];
    for await (const b of r.batches) rows.push(...b.map((row) => [...row]));
    return { mv: r.headers?.['x-shoal-mv'] ?? null, rows };
  };
  const published = async (): Promise<{ id: string; path: string }> => {
    const r = await instance.mvs!.resolve('sales.by_region');
    if (r.kind !== 'snapshot') throw new Error(`not a snapshot: ${JSON.stringify(r)}`);
    return { id: r.snapshotId, path: r.path };
  };
  const ROWS = [['eu', 40], ['us', 20]];

  for (const [how, damage] of [
    ['truncated', (path: string) => truncateSync(path, Math.floor(statSync(path).size / 2))],
    ['overwritten with other bytes', (path: string) => writeFileSync(path, Buffer.alloc(statSync(path).size, 0x41))],
  ] as const) {
    it(`${how} after it was served: the read is answered live, the file is quarantined, and the MV is rebuilt with unchanged inputs`, async () => {
      expect((await instance.mvs!.refresh('sales.by_region')).outcome).toBe('refreshed');
      const first = await published();
      expect(await read()).toEqual({ mv: `sales.by_region=snapshot:${first.id}`, rows: ROWS });
      damage(first.path);
      // the very read that meets the damage is answered, live, with the same rows
      expect(await read()).toEqual({ mv: 'sales.by_region=live', rows: ROWS });
      expect(existsSync(first.path)).toBe(false);
      expect(readdirSync(dirname(first.path)).some((f) => f.startsWith('.quarantine-'))).toBe(true);
      expect(errors).toContainEqual(expect.objectContaining({ code: 'MV_SNAPSHOT_UNREADABLE' }));
      // rebuilt (the inputs are unchanged) and served from the new snapshot
      const rebuilt = await eventually(async () => {
        const r = await instance.mvs!.resolve('sales.by_region');
        return r.kind === 'snapshot' && r.snapshotId !== first.id ? r.snapshotId : undefined;
      }, 'a rebuilt snapshot');
      expect(await read()).toEqual({ mv: `sales.by_region=snapshot:${rebuilt}`, rows: ROWS });
    });
  }

  it('a published snapshot gone from the store (a peer quarantined it) makes the MV a refresh candidate although its inputs are unchanged', async () => {
    expect((await instance.mvs!.refresh('sales.by_region')).outcome).toBe('refreshed');
    expect(await instance.mvs!.candidates()).toEqual([]);
    rmSync((await published()).path);
    expect(await instance.mvs!.candidates()).toEqual(['sales.by_region']);
    expect(await read()).toEqual({ mv: 'sales.by_region=live', rows: ROWS });
  });
});
