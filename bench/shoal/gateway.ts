/**
 * shoal's gateway overhead, measured side by side in one run (ratios, never timed assertions).
 * Each pair is measured interleaved (`sideBySide`: both warm, alternating order per round), and
 * both sides deliver the result rows to JavaScript, so a ratio compares like with like:
 * - an aggregate over N rows of a Parquet file: the instance (parse → govern → generate → engine)
 *   against the same SQL on a raw in-memory DuckDB;
 * - point lookups on the same table, instance against raw DuckDB;
 * - point lookups and an aggregate on the direct route against a raw `pg` client (when PostgreSQL
 *   binaries are installed: a throwaway server is started for the run); the lookups also against
 *   a raw client using a named prepared statement, as the direct route does;
 * - point lookups over HTTP: `POST /data/sql` on the instance's app against a bare Fastify handler
 *   running the same lookup on the raw DuckDB, both on loopback;
 * - cold start: an instance rebuilding its catalog from a registry holding 100 tables, against a
 *   raw DuckDB creating the same 100 views.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import Fastify from 'fastify';
import pg from 'pg';
import { loadConfig } from '../../src/shoal/check/load-config.js';
import { factsParquet } from './facts-parquet.js';
import { ShoalInstance } from '../../src/shoal/instance/instance.js';
import { buildApp } from '../../src/shoal/server/app.js';
import { isMissing, startPostgres } from '../../test/support/services.js';
import { settle, sideBySide, type BenchResult } from '../tik/measure.js';

async function drain(instance: ShoalInstance, sql: string, role = 'admin', vars: Record<string, string> = {}): Promise<number> {
  const r = await instance.query({ sql, role, vars }, new AbortController().signal);
  let n = 0;
  for await (const b of r.batches) n += b.length;
  return n;
}

/** The floor: the same SQL on a raw DuckDB connection, its rows converted to JS values as the instance's are. */
async function rawDuck(conn: Awaited<ReturnType<DuckDBInstance['connect']>>, sql: string): Promise<number> {
  const reader = await conn.runAndReadAll(sql);
  return reader.getRowsJson().length;
}

const COLUMNS = `columns:
      - {name: id, data_type: bigint, visible_to: [admin, analyst]}
      - {name: region, data_type: varchar, visible_to: [admin, analyst]}
      - {name: amount, data_type: double, visible_to: [admin, analyst]}
      - {name: email, data_type: varchar, visible_to: [admin, analyst], unmasked_to: [admin], mask_type: regex, mask_pattern: "^(.{2}).*(@.*)$", mask_replace: "$1***$2"}`;

/** `SHOAL_BENCH_PLAN_CACHE=0` measures without the plan cache (the "before" of issue 14). */
const LIMITS = process.env.SHOAL_BENCH_PLAN_CACHE === undefined ? '' : `server: {limits: {plan_cache_size: ${Number(process.env.SHOAL_BENCH_PLAN_CACHE)}}}\n`;

const ROLES = `roles:
  - {id: admin, capabilities: [admin, query_development, full_results], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development, full_results], domain_access: [bench]}
rls_rules:
  - {table_id: facts, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}`;

export async function benchGateway(rows: number, runs: number): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-bench-'));
  const results: BenchResult[] = [];
  try {
    const { rc } = await factsParquet(dir, rows);
    writeFileSync(join(dir, 'shoal.yaml'), `${LIMITS}auth: {provider: none}
control_plane: {tenant_url: "sqlite:///registry.db"}
domains: [{id: bench}]
sources: [{id: files, type: parquet, path: facts.parquet}]
tables:
  - source_id: files
    domain_id: bench
    table: facts
    ${COLUMNS}
${ROLES}
`);
    const { config } = loadConfig({ path: join(dir, 'shoal.yaml') });
    const instance = await ShoalInstance.start({ config, baseDir: dir, resultCache: false }); // the governed path itself, not cache hits (bench/shoal/cache.ts)
    try {
      const agg = 'SELECT region, count(*) AS n, sum(amount) AS total FROM facts GROUP BY region ORDER BY region';
      // warm: the first plan loads the SQL library, whose background compilation must be over before timing
      await drain(instance, agg.replace('FROM facts', 'FROM bench.facts'));
      await settle();
      const aggPair = await sideBySide(runs, () => rawDuck(rc, agg), () => drain(instance, agg.replace('FROM facts', 'FROM bench.facts')));
      results.push({ name: `shoal: aggregate over ${rows} rows`, ...aggPair, note: 'instance vs raw DuckDB on the same Parquet file' });
      const rlsAgg = `${agg.replace(' GROUP BY', " WHERE region = 'eu' GROUP BY")}`;
      const aggGov = await sideBySide(runs, () => rawDuck(rc, rlsAgg), () => drain(instance, agg.replace('FROM facts', 'FROM bench.facts'), 'analyst', { 'provisa.user_region': 'eu' }));
      results.push({ name: `shoal: aggregate, RLS role`, ...aggGov, note: 'same, as a role with a row filter (raw DuckDB: the filter written into the SQL)' });

      const lookups = 50;
      const ids = Array.from({ length: lookups }, (_, i) => (i * 7919) % rows);
      const point = await sideBySide(
        runs,
        async () => {
          for (const id of ids) await rawDuck(rc, `SELECT * FROM facts WHERE id = ${id}`);
        },
        async () => {
          for (const id of ids) await drain(instance, `SELECT * FROM bench.facts WHERE id = ${id}`);
        },
      );
      results.push({ name: `shoal: ${lookups} point lookups`, ...point, note: 'instance vs raw DuckDB' });
      results.push(await benchHttp(instance, rc, ids, runs));
    } finally {
      await instance.close();
      rc.closeSync();
    }

    results.push(...(await benchDirect(dir, Math.min(rows, 100_000), runs)));
    results.push(await benchColdStart(dir, 100, runs));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

/** The same point lookups as HTTP requests: the instance's app against a bare handler over the raw DuckDB. */
async function benchHttp(instance: ShoalInstance, rc: Awaited<ReturnType<DuckDBInstance['connect']>>, ids: readonly number[], runs: number): Promise<BenchResult> {
  const app = await buildApp({ service: instance, logger: false });
  const bare = Fastify({ logger: false });
  bare.post('/sql', async (req) => {
    const { id } = req.body as { id: number };
    const reader = await rc.runAndReadAll(`SELECT * FROM facts WHERE id = ${Number(id)}`);
    const columns = reader.columnNames().map((name, i) => ({ name, type: String(reader.columnType(i)) }));
    return { columns, rows: reader.getRowsJson() };
  });
  try {
    const gwUrl = await app.listen({ port: 0, host: '127.0.0.1' });
    const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
    const post = async (url: string, body: unknown, headers: Record<string, string> = {}): Promise<void> => {
      const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      if (!r.ok) throw new Error(`bench: ${url} answered ${r.status}: ${await r.text()}`);
      await r.arrayBuffer();
    };
    const pair = await sideBySide(
      runs,
      async () => {
        for (const id of ids) await post(`${bareUrl}/sql`, { id });
      },
      async () => {
        for (const id of ids) await post(`${gwUrl}/data/sql`, { sql: `SELECT * FROM bench.facts WHERE id = ${id}` }, { 'x-provisa-role': 'admin' });
      },
    );
    return { name: `shoal: ${ids.length} point lookups over HTTP`, ...pair, note: 'POST /data/sql vs a bare Fastify handler on raw DuckDB' };
  } finally {
    await app.close();
    await bare.close();
  }
}

/** The direct-route pair alone (`gateway-run.js --direct`): a throwaway PostgreSQL, no Parquet file. */
export async function benchDirectOnly(rows: number, runs: number): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-bench-'));
  try {
    return await benchDirect(dir, rows, runs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function benchDirect(dir: string, rows: number, runs: number): Promise<BenchResult[]> {
  const server = await startPostgres();
  if (isMissing(server)) {
    process.stderr.write(`bench: skipping the direct-route benchmark: ${server.missing}\n`);
    return [];
  }
  const client = new pg.Client({ connectionString: server.url });
  try {
    await client.connect();
    await client.query(`CREATE TABLE facts AS SELECT i::bigint AS id, (ARRAY['eu','us','apac'])[1 + i % 3] AS region,
      ((i % 1000) / 10.0)::float8 AS amount, 'user' || i || '@example.com' AS email FROM generate_series(0, ${rows - 1}) i`);
    await client.query('ALTER TABLE facts ADD PRIMARY KEY (id)');
    const u = new URL(server.url);
    writeFileSync(join(dir, 'direct.yaml'), `${LIMITS}control_plane: {tenant_url: "sqlite:///direct-registry.db"}
domains: [{id: bench}]
sources: [{id: pg, type: postgresql, host: ${u.hostname}, port: ${u.port}, database: postgres, username: ${u.username}}]
tables:
  - source_id: pg
    domain_id: bench
    schema: public
    table: facts
    ${COLUMNS}
${ROLES}
`);
    const { config } = loadConfig({ path: join(dir, 'direct.yaml') });
    const instance = await ShoalInstance.start({ config, baseDir: dir, resultCache: false }); // the governed path itself, not cache hits (bench/shoal/cache.ts)
    try {
      const ids = Array.from({ length: 50 }, (_, i) => (i * 7919) % rows);
      // warm both sides past V8's tiers and the pools' first checkouts before anything is timed:
      // one warm-up call per side (sideBySide) left the first pair's gateway side still compiling
      for (let i = 0; i < 10; i++) {
        for (const id of ids) await drain(instance, `SELECT id, region, amount, email FROM bench.facts WHERE id = ${id}`);
        for (const id of ids) await client.query('SELECT id, region, amount, email FROM facts WHERE id = $1', [id]);
      }
      await settle();
      const point = await sideBySide(
        runs,
        async () => {
          for (const id of ids) await client.query('SELECT id, region, amount, email FROM facts WHERE id = $1', [id]);
        },
        async () => {
          for (const id of ids) await drain(instance, `SELECT id, region, amount, email FROM bench.facts WHERE id = ${id}`);
        },
      );
      // the direct route prepares its parameterised statement once per connection: against a raw
      // client doing the same, the ratio is the gateway's own cost alone
      const prepared = await sideBySide(
        runs,
        async () => {
          for (const id of ids) await client.query({ name: 'lookup', text: 'SELECT id, region, amount, email FROM facts WHERE id = $1', values: [id] });
        },
        async () => {
          for (const id of ids) await drain(instance, `SELECT id, region, amount, email FROM bench.facts WHERE id = ${id}`);
        },
      );
      const agg = 'SELECT region, count(*) AS n FROM facts GROUP BY region';
      const aggPair = await sideBySide(runs, () => client.query(agg), () => drain(instance, agg.replace('FROM facts', 'FROM bench.facts')));
      return [
        { name: 'shoal direct: 50 point lookups', ...point, note: 'direct route vs raw pg client' },
        { name: 'shoal direct: 50 point lookups, prepared', ...prepared, note: 'direct route vs raw pg client with a named prepared statement' },
        { name: `shoal direct: aggregate over ${rows} rows`, ...aggPair, note: 'direct route vs raw pg client' },
      ];
    } finally {
      await instance.close();
    }
  } finally {
    await client.end().catch(() => undefined);
    await server.stop();
  }
}

async function benchColdStart(dir: string, tables: number, runs: number): Promise<BenchResult> {
  const csv = join(dir, 'small.csv');
  writeFileSync(csv, 'id,name\n1,a\n2,b\n');
  const lines = Array.from({ length: tables }, (_, i) => `  - {source_id: files, domain_id: bench, table: t${i}, columns: [{name: id, data_type: integer, visible_to: [admin]}, {name: name, data_type: varchar, visible_to: [admin]}]}`);
  writeFileSync(join(dir, 'cold.yaml'), `control_plane: {tenant_url: "sqlite:///cold-registry.db"}
domains: [{id: bench}]
sources: [{id: files, type: csv, path: small.csv}]
tables:
${lines.join('\n')}
roles: [{id: admin, capabilities: [admin, query_development, full_results], domain_access: ["*"]}]
`);
  const { config } = loadConfig({ path: join(dir, 'cold.yaml') });
  // Populate the registry once; each measured start only reads it back and rebuilds the catalog.
  await (await ShoalInstance.start({ config, baseDir: dir })).close();
  const pair = await sideBySide(
    runs,
    async () => {
      const db = await DuckDBInstance.create(':memory:');
      const c = await db.connect();
      for (let i = 0; i < tables; i++) await c.run(`CREATE VIEW t${i} AS SELECT * FROM read_csv_auto('${csv}')`);
      c.closeSync();
    },
    async () => {
      const inst = await ShoalInstance.start({ config, baseDir: dir, importConfig: false, resultCache: false });
      await drain(inst, 'SELECT count(*) FROM bench.t99');
      await inst.close();
    },
  );
  return { name: `shoal: cold start, ${tables} tables`, ...pair, note: 'registry read + catalog rebuild + first query vs raw DuckDB creating the views' };
}
