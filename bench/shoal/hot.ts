/**
 * Hot tables, measured side by side in one run (a ratio, never a timed assertion): N facts in a
 * Parquet file (scanned in place) joined with a 1,000-row dimension that the engine otherwise
 * lands from its source per query, through an instance with the dimension hot (bound to its
 * engine-resident copy) against the same instance config with hot tables off: end to end
 * (`ShoalInstance.query`, planning included) and the engine alone (the planned SQL of each path
 * executed; planning is the same work on both). Three shapes (CASES): a join scanning every fact,
 * where the shared scan dominates; a selective join over an id range of the facts (the Parquet
 * scan still decodes the row group holding it); and a join of a 1,000-row local table with the
 * dimension, where landing the dimension is most of the live query. The dimension lives in SQLite, and in PostgreSQL too
 * when its binaries are installed (a throwaway server is started for the run). Both instances
 * must answer identically; the run checks that before it measures.
 *
 * The headline shape (issue 14's "≥ 5× faster than the live join") is the last one, `wide
 * dimension join`: the same small local table joined with a dimension of WIDE_DIM_ROWS rows
 * (`hot_tables.max_rows` raised to hold it), so the dimension, not the shared fact scan, is what
 * a query costs. That is the case hot tables are for; with a 1,000-row dimension a hot query and
 * a live one differ only by one small landing, and the shapes above report that too. The live
 * side is the real thing on every shape: the dimension is landed from its source per query.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import pg from 'pg';
import { loadConfig } from '../../src/shoal/check/load-config.js';
import type { ShoalConfig } from '../../src/shoal/config/model.js';
import { ShoalInstance } from '../../src/shoal/instance/instance.js';
import { engineNameWithMvs } from '../../src/shoal/mv/mv-relation.js';
import { catalogFromConfig, planQuery } from '../../src/shoal/sql/index.js';
import { isMissing, startPostgres } from '../../test/support/services.js';
import { settle, type BenchResult } from '../tik/measure.js';

const DIM_ROWS = 1000;
const RECENT_ROWS = 1000;
/** The headline shape's dimension: large enough that it, not the fact side, is the query. */
const WIDE_DIM_ROWS = 20_000;

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}
const middle = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function answer(instance: ShoalInstance, sql: string): Promise<{ rows: string; hot: boolean }> {
  const r = await instance.query({ sql, role: 'analyst', vars: { 'provisa.user_region': 'eu' } }, new AbortController().signal);
  const rows: unknown[] = [];
  for await (const b of r.batches) rows.push(...b);
  return { rows: JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)), hot: r.headers?.['x-shoal-hot'] !== undefined };
}

/** A fact table (id, dim_id, amount) of a Parquet source, as a config entry. */
const factTable = (source: string, table: string): string =>
  `{source_id: ${source}, domain_id: bench, table: ${table}, columns: [{name: id, data_type: bigint}, {name: dim_id, data_type: bigint}, {name: amount, data_type: double}]}`;

/** The dimensions (table, rows), both in the dimension source: the hot tables of the run. */
const DIMENSIONS: readonly (readonly [string, number])[] = [
  ['dims', DIM_ROWS],
  ['wide_dims', WIDE_DIM_ROWS],
];

/** A dimension of the dimension source as a hot config entry, its owner column masked. */
const dimTable = (table: string): string => `  - source_id: dims
    domain_id: bench
    table: ${table}
    hot: true
    columns:
      - {name: id, data_type: bigint}
      - {name: region, data_type: varchar}
      - {name: label, data_type: varchar}
      - {name: owner, data_type: varchar, unmasked_to: [admin], mask_type: regex, mask_pattern: "^(.{2}).*$", mask_replace: "$1***"}
`;

function yaml(dimSource: string): string {
  return `control_plane: {tenant_url: "sqlite:///registry.db"}
domains: [{id: bench}]
sources:
  - {id: files, type: parquet, path: facts.parquet}
  - {id: recent, type: parquet, path: recent.parquet}
  - ${dimSource}
tables:
  - ${factTable('files', 'facts')}
  - ${factTable('recent', 'recent')}
${DIMENSIONS.map(([table]) => dimTable(table)).join('')}roles:
  - {id: admin, capabilities: [admin, query_development, full_results], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development, full_results], domain_access: [bench]}
rls_rules:
${DIMENSIONS.map(([table]) => `  - {table_id: ${table}, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}\n`).join('')}hot_tables: {max_rows: ${WIDE_DIM_ROWS}, refresh_interval: 3600}
cache: {enabled: false}
`;
}

/** One query shape measured hot against live; `shape` is printed with its ratios. */
interface HotCase {
  readonly name: string;
  readonly sql: string;
  readonly shape: (rows: number) => string;
  /** The hot table the query reads (default `bench.dims`). */
  readonly table?: string;
}

const CASES: readonly HotCase[] = [
  {
    // every fact is scanned on both sides: the landing the hot copy saves is about as large as that
    // shared scan, so this shape cannot show a large ratio whatever the hot tier does
    name: 'dimension join',
    sql: 'SELECT d.label, count(*) AS n, round(sum(f.amount), 4) AS total, min(d.owner) AS o FROM bench.facts f JOIN bench.dims d ON d.id = f.dim_id GROUP BY d.label ORDER BY d.label',
    shape: (rows) => `all ${rows} facts scanned × ${DIM_ROWS}-row dimension`,
  },
  {
    // what hot tables are for: a small slice of local data enriched from a small remote table,
    // where landing that table is most of a live query's work
    name: 'selective join',
    sql: 'SELECT d.label, count(*) AS n, round(sum(f.amount), 4) AS total, min(d.owner) AS o FROM bench.facts f JOIN bench.dims d ON d.id = f.dim_id WHERE f.id < 1000 GROUP BY d.label ORDER BY d.label',
    shape: (rows) => `1,000 of ${rows} facts (an id range the Parquet scan prunes to) × ${DIM_ROWS}-row dimension`,
  },
  {
    // the same enrichment over a small local table of its own (a day's orders, an uploaded list):
    // the fact side costs next to nothing, so the ratio is the landing the hot copy saves
    name: 'small-table join',
    sql: 'SELECT d.label, count(*) AS n, round(sum(f.amount), 4) AS total, min(d.owner) AS o FROM bench.recent f JOIN bench.dims d ON d.id = f.dim_id GROUP BY d.label ORDER BY d.label',
    shape: () => `a ${RECENT_ROWS}-row Parquet table × ${DIM_ROWS}-row dimension`,
  },
  {
    // the headline: the same small table enriched from a dimension large enough to be the query's
    // cost, the case hot tables exist for (the facts reference 1,000 of its members)
    name: 'wide dimension join (headline)',
    sql: 'SELECT d.label, count(*) AS n, round(sum(f.amount), 4) AS total, min(d.owner) AS o FROM bench.recent f JOIN bench.wide_dims d ON d.id = f.dim_id GROUP BY d.label ORDER BY d.label',
    shape: () => `a ${RECENT_ROWS}-row Parquet table × ${WIDE_DIM_ROWS}-row dimension (headline: the dimension dominates)`,
    table: 'bench.wide_dims',
  },
];

async function measure(dir: string, label: string, dimSource: string, rows: number, runs: number): Promise<BenchResult[]> {
  writeFileSync(join(dir, 'shoal.yaml'), yaml(dimSource));
  const { config } = loadConfig({ path: join(dir, 'shoal.yaml') });
  const hot = await ShoalInstance.start({ config, baseDir: dir, pollMs: 60_000 });
  const live = await ShoalInstance.start({ config, baseDir: dir, pollMs: 60_000, importConfig: false, hot: false });
  const results: BenchResult[] = [];
  try {
    for (const c of CASES) results.push(...(await measureCase(config, hot, live, label, c, rows, runs)));
    return results;
  } finally {
    await hot.close();
    await live.close();
  }
}

async function measureCase(config: ShoalConfig, hot: ShoalInstance, live: ShoalInstance, label: string, c: HotCase, rows: number, runs: number): Promise<BenchResult[]> {
  const { sql } = c;
  // a copy is served only while its change signal was checked within revalidate_interval: a
  // start-up that held the event loop longer than that serves the first query live
  let a = await answer(hot, sql);
  for (let i = 0; i < 20 && !a.hot; i++) {
    await new Promise((r) => setTimeout(r, 100));
    a = await answer(hot, sql);
  }
  const b = await answer(live, sql);
  if (!a.hot || b.hot || a.rows !== b.rows) throw new Error(`hot bench (${label}, ${c.name}): the hot and live instances disagree, or the dimension was not inlined (hot ${a.hot}, live ${b.hot}; ${a.rows.slice(0, 300)} vs ${b.rows.slice(0, 300)})`);
  // both warm (the SQL library's background compilation over) before anything is timed
  await settle();
  // alternate the two so a busy machine slows both alike
  const liveTimes: number[] = [];
  const hotTimes: number[] = [];
  await answer(live, sql);
  await answer(hot, sql);
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      liveTimes.push(await timed(() => answer(live, sql)));
      hotTimes.push(await timed(() => answer(hot, sql)));
    } else {
      hotTimes.push(await timed(() => answer(hot, sql)));
      liveTimes.push(await timed(() => answer(live, sql)));
    }
  }
  const liveMs = middle(liveTimes);
  const hotMs = middle(hotTimes);
  // the engine alone: each path's planned SQL, as the instance plans it (the hot one bound to the resident copy)
  const governance = catalogFromConfig(config, { engineName: engineNameWithMvs });
  const req = { sql, role: 'analyst', vars: { 'provisa.user_region': 'eu' } };
  const drain = async (instance: ShoalInstance, p: { sql: string; pushdown?: unknown }) => {
    for await (const _ of instance.engine.execute(p.sql, { pushdown: p.pushdown as never })) void _;
  };
  const liveEngine: number[] = [];
  const hotEngine: number[] = [];
  const livePlan = planQuery(req, governance, {});
  for (let i = 0; i <= runs; i++) {
    const table = c.table ?? 'bench.dims';
    const lease = hot.hot!.binding(table);
    try {
      const hotPlan = planQuery(req, governance, { hotRelation: (k) => (k === table ? lease?.relation : undefined) });
      if (!lease || hotPlan.hot?.[0] !== table) continue; // between revalidations: not measured
      const l = await timed(() => drain(live, livePlan));
      const h = await timed(() => drain(hot, hotPlan));
      if (i > 0) {
        liveEngine.push(l);
        hotEngine.push(h);
      }
    } finally {
      lease?.release();
    }
  }
  const note = `${c.shape(rows)}, RLS + mask; hot vs landed per query (<1 = hot faster)`;
  return [
    { name: `shoal hot: ${c.name} (${label})`, floorMs: liveMs, ms: hotMs, note },
    ...(hotEngine.length > 0 ? [{ name: `shoal hot: ${c.name}, engine only (${label})`, floorMs: middle(liveEngine), ms: middle(hotEngine), note: `${note}; planned SQL executed, planning excluded` }] : []),
  ];
}

export async function benchHot(rows: number, runs: number): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-bench-hot-'));
  const results: BenchResult[] = [];
  try {
    const raw = await DuckDBInstance.create(':memory:', { threads: '2' });
    const rc = await raw.connect();
    await rc.run(`COPY (SELECT i AS id, (i * 7919) % ${DIM_ROWS} AS dim_id, (i % 1000) / 10.0 AS amount FROM range(${rows}) t(i)) TO '${join(dir, 'facts.parquet')}' (FORMAT parquet)`);
    await rc.run(`COPY (SELECT i AS id, (i * 7919) % ${DIM_ROWS} AS dim_id, (i % 1000) / 10.0 AS amount FROM range(${RECENT_ROWS}) t(i)) TO '${join(dir, 'recent.parquet')}' (FORMAT parquet)`);
    rc.closeSync();
    const db = new Database(join(dir, 'dims.db'));
    for (const [table, n] of DIMENSIONS) {
      db.exec(`CREATE TABLE ${table} (id INTEGER, region TEXT, label TEXT, owner TEXT)`);
      const ins = db.prepare(`INSERT INTO ${table} VALUES (?, ?, ?, ?)`);
      db.transaction(() => {
        for (let i = 0; i < n; i++) ins.run(i, ['eu', 'us', 'apac'][i % 3]!, `label-${i % 50}`, `owner${i}@example.com`);
      })();
    }
    db.close();
    results.push(...(await measure(dir, 'SQLite dimension', '{id: dims, type: sqlite, path: dims.db}', rows, runs)));

    const server = await startPostgres();
    if (isMissing(server)) {
      process.stderr.write(`bench: PostgreSQL dimension skipped (${server.missing})\n`);
      return results;
    }
    try {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      for (const [table, n] of DIMENSIONS) {
        await client.query(`CREATE TABLE ${table} (id bigint, region varchar, label varchar, owner varchar)`);
        await client.query(`INSERT INTO ${table} SELECT i, (ARRAY['eu','us','apac'])[1 + i % 3], 'label-' || (i % 50), 'owner' || i || '@example.com' FROM generate_series(0, ${n - 1}) i`);
      }
      await client.end();
      const u = new URL(server.url);
      const line = `{id: dims, type: postgresql, host: "${u.hostname}", port: ${u.port}, database: "${u.pathname.slice(1) || 'postgres'}", username: "${decodeURIComponent(u.username)}"}`;
      results.push(...(await measure(dir, 'PostgreSQL dimension', line, rows, runs)));
    } finally {
      await server.stop();
    }
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
