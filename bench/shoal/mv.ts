/**
 * shoal's materialized views, measured side by side in one run (ratios, never timed assertions):
 * - refresh economics: N instances (MV services on one SQLite catalog and one store) all told to
 *   refresh the same version, against one instance refreshing alone; the note counts refreshes;
 * - reader latency on an MV while refreshes run back to back, against the same reads when idle;
 * - the per-query cost of snapshot resolution: a governed MV read through the instance (cached
 *   resolution, and resolution on every query), against the same SQL over the Parquet file on
 *   the engine directly; reads resolving every query against cached ones; and one uncached
 *   resolution against one governed read.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteClient } from '../../src/core/sql/sqlite-client.js';
import { loadConfig } from '../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../src/shoal/instance/instance.js';
import { MvService } from '../../src/shoal/mv/mv-service.js';
import { SnapshotStore } from '../../src/shoal/mv/snapshot-store.js';
import { median, type BenchResult } from '../tik/measure.js';

const READ = 'SELECT region, total, n FROM sales.by_region ORDER BY region';

async function drain(instance: ShoalInstance, sql: string): Promise<number> {
  const r = await instance.query({ sql, role: 'admin', vars: {} }, new AbortController().signal);
  let n = 0;
  for await (const b of r.batches) n += b.length;
  return n;
}

export async function benchMv(rows: number, runs: number, fleet = 3): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-bench-mv-'));
  const regions = ['eu', 'us', 'apac', 'latam', 'mena'];
  writeFileSync(join(dir, 'orders.csv'), `id,region,amount\n${Array.from({ length: rows }, (_, i) => `${i},${regions[i % 5]},${i % 1000}`).join('\n')}\n`);
  writeFileSync(
    join(dir, 'shoal.yaml'),
    `
domains: [{id: sales}]
sources: [{id: orders-csv, type: csv, path: orders.csv}]
tables:
  - {source_id: orders-csv, domain_id: sales, table: orders, columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}, {name: amount, data_type: integer}]}
  - source_id: __derived__
    domain_id: sales
    table: by_region
    materialize: true
    view_sql: 'SELECT region, sum(amount) AS total, count(*) AS n FROM "orders_csv"."default"."orders" GROUP BY region'
    columns: [{name: region, data_type: varchar}, {name: total, data_type: bigint}, {name: n, data_type: bigint}]
roles: [{id: admin, capabilities: [admin, full_results], domain_access: ["*"]}]
`,
  );
  const config = loadConfig({ path: join(dir, 'shoal.yaml') }).config;
  // resultCache: false — these measure reads of the MV snapshot, not result-cache hits (bench/shoal/cache.ts)
  const cached = await ShoalInstance.start({ config, baseDir: dir, mv: { tickMs: 0 }, resultCache: false });
  const uncached = await ShoalInstance.start({ config, baseDir: dir, mv: { tickMs: 0, resolveMaxAgeMs: 0 }, importConfig: false, resultCache: false });
  const results: BenchResult[] = [];
  try {
    // refresh economics: one forced refresh alone, then N services racing for one version each round
    const model = { ...config, sources: config.sources.map((s) => ({ ...s, path: join(dir, s.path!) })) };
    const services = await Promise.all(
      Array.from({ length: fleet }, async (_, i) => {
        const db = await openSqliteClient(join(dir, 'bench-catalog.db'));
        const mvs = await MvService.open({ db, store: await SnapshotStore.open(join(dir, 'bench-store')), engine: cached.engine, writer: `bench-${i}` });
        await mvs.sync(model);
        return { db, mvs };
      }),
    );
    let refreshes = 0;
    let attempts = 0;
    const alone = await median(runs, async () => {
      await services[0]!.mvs.refresh('sales.by_region', { force: true });
    });
    let round = 0;
    const racing = await median(runs, async () => {
      // a new input version each round, so exactly one refresh is due
      writeFileSync(join(dir, 'orders.csv'), `id,region,amount\n${Array.from({ length: rows }, (_, i) => `${i},${regions[i % 5]},${(i + ++round) % 1000}`).join('\n')}\n`);
      const outcomes = await Promise.all(services.map((s) => s.mvs.refresh('sales.by_region')));
      attempts += outcomes.length;
      refreshes += outcomes.filter((o) => o.outcome === 'refreshed').length;
    });
    results.push({
      name: `mv refresh: ${fleet} instances race / 1 alone`,
      ms: racing,
      floorMs: alone,
      note: `${refreshes} refreshes for ${attempts / fleet} versions (${attempts} attempts), ${rows} source rows`,
    });
    for (const s of services) await s.db.close();

    // readers: idle, then while one service refreshes back to back
    await cached.mvs!.refresh('sales.by_region', { force: true });
    await drain(cached, READ);
    const idle = await median(runs * 10, () => drain(cached, READ));
    let busy = true;
    const refresher = (async () => {
      while (busy) await uncached.mvs!.refresh('sales.by_region', { force: true });
    })();
    const during = await median(runs * 10, () => drain(cached, READ));
    busy = false;
    await refresher;
    results.push({ name: 'mv read during refreshes / idle', ms: during, floorMs: idle, note: 'governed snapshot reads, resolution cached' });

    // the cost of resolving the snapshot per query
    const resolution = await cached.mvs!.resolve('sales.by_region');
    if (resolution.kind !== 'snapshot') throw new Error('no snapshot to read');
    const raw = `SELECT region, total, n FROM read_parquet('${resolution.path}') ORDER BY region`;
    const engineOnly = await median(runs * 10, async () => {
      for await (const b of cached.engine.execute(raw)) void b;
    });
    const warm = await median(runs * 10, () => drain(cached, READ));
    const cold = await median(runs * 10, () => drain(uncached, READ));
    results.push({ name: 'mv read, resolution cached / raw parquet', ms: warm, floorMs: engineOnly, note: 'governed, bound per query; resolution ≤ 1 s old' });
    results.push({ name: 'mv read, resolved every query / raw parquet', ms: cold, floorMs: engineOnly, note: 'one catalog SELECT per query (SQLite)' });
    // the per-query resolution cost itself: reads that resolve every time against cached ones, and
    // one uncached resolution (catalog row + store check) against one governed read
    results.push({ name: 'mv read, resolved every query / cached', ms: cold, floorMs: warm, note: 'what resolving per query adds to a read' });
    const resolveOnce = await median(runs * 10, async () => {
      await uncached.mvs!.resolve('sales.by_region');
    });
    results.push({ name: 'one snapshot resolution / one governed mv read', ms: resolveOnce, floorMs: warm, note: 'catalog SELECT + snapshot exists check, uncached' });
  } finally {
    await uncached.close();
    await cached.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}
