import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import { loadConfig } from '../../src/shoal/config/load-config.js';
import { ShoalInstance } from '../../src/shoal/instance/instance.js';

const dir = mkdtempSync(join(tmpdir(), 'probe-'));
const raw = await DuckDBInstance.create(':memory:');
const rc = await raw.connect();
await rc.run(`COPY (SELECT i AS id, (i * 7919) % 1000 AS dim_id, (i % 1000) / 10.0 AS amount FROM range(200000) t(i)) TO '${join(dir, 'facts.parquet')}' (FORMAT parquet)`);
const db = new Database(join(dir, 'dims.db'));
db.exec('CREATE TABLE dims (id INTEGER, region TEXT, label TEXT, owner TEXT)');
const ins = db.prepare('INSERT INTO dims VALUES (?, ?, ?, ?)');
for (let i = 0; i < 1000; i++) ins.run(i, ['eu', 'us', 'apac'][i % 3], `label-${i % 50}`, `owner${i}@example.com`);
db.close();
writeFileSync(join(dir, 's.yaml'), `control_plane: {tenant_url: "sqlite:///registry.db"}
domains: [{id: bench}]
sources:
  - {id: files, type: parquet, path: facts.parquet}
  - {id: dims, type: sqlite, path: dims.db}
tables:
  - {source_id: files, domain_id: bench, table: facts, columns: [{name: id, data_type: bigint}, {name: dim_id, data_type: bigint}, {name: amount, data_type: double}]}
  - {source_id: dims, domain_id: bench, table: dims, hot: true, columns: [{name: id, data_type: bigint}, {name: region, data_type: varchar}, {name: label, data_type: varchar}, {name: owner, data_type: varchar}]}
roles:
  - {id: analyst, capabilities: [query_development, full_results], domain_access: [bench]}
rls_rules:
  - {table_id: dims, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}
hot_tables: {max_rows: 1000, refresh_interval: 3600}
cache: {enabled: false}
`);
const { config } = loadConfig({ path: join(dir, 's.yaml') });
const inst = await ShoalInstance.start({ config, baseDir: dir, pollMs: 60_000 });
const sql = process.argv[2] ?? 'SELECT d.label, count(*) AS n FROM bench.facts f JOIN bench.dims d ON d.id = f.dim_id GROUP BY d.label ORDER BY d.label';
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  const r = await inst.query({ sql, role: 'analyst', vars: { 'provisa.user_region': 'eu' } }, new AbortController().signal);
  let n = 0;
  for await (const b of r.batches) n += b.length;
  console.log((performance.now() - t).toFixed(1), 'ms', n, r.headers);
}
const t = performance.now();
const c = await raw.connect();
await c.runAndReadAll(`SELECT count(*) FROM read_parquet('${join(dir, 'facts.parquet')}')`);
console.log('raw parquet count', (performance.now() - t).toFixed(1));
await inst.close();
const { planQuery } = await import('../../src/shoal/sql/index.js');
const inst2 = await ShoalInstance.start({ config, baseDir: dir, pollMs: 60_000, importConfig: false });
const gov = (inst2 as unknown as { state: { governance: never } }).state.governance;
let t0 = performance.now();
const p = planQuery({ sql, role: 'analyst', vars: { 'provisa.user_region': 'eu' } }, gov, {});
console.log('plan', (performance.now() - t0).toFixed(1), p.sql.slice(0, 400));
for (let i = 0; i < 3; i++) {
  t0 = performance.now();
  const rows = [];
  for await (const b of inst2.engine.execute(p.sql, { pushdown: p.pushdown })) rows.push(b);
  console.log('live exec', (performance.now() - t0).toFixed(1));
}
await inst2.close();
