import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import { loadConfig } from '../../src/shoal/config/load-config.js';
import { ShoalInstance } from '../../src/shoal/instance/instance.js';
import { planQuery } from '../../src/shoal/sql/index.js';

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
  - {source_id: dims, domain_id: bench, table: dims, hot: true, columns: [{name: id, data_type: bigint}, {name: region, data_type: varchar}, {name: label, data_type: varchar}, {name: owner, data_type: varchar, unmasked_to: [admin], mask_type: regex, mask_pattern: "^(.{2}).*$", mask_replace: "$1***"}]}
roles:
  - {id: analyst, capabilities: [query_development, full_results], domain_access: [bench]}
rls_rules:
  - {table_id: dims, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}
hot_tables: {max_rows: 1000, refresh_interval: 3600}
cache: {enabled: false}
`);
const { config } = loadConfig({ path: join(dir, 's.yaml') });
const inst = await ShoalInstance.start({ config, baseDir: dir, pollMs: 60_000 });
const sql = 'SELECT d.label, count(*) AS n, round(sum(f.amount), 4) AS total, min(d.owner) AS o FROM bench.facts f JOIN bench.dims d ON d.id = f.dim_id GROUP BY d.label ORDER BY d.label';
const gov = (inst as unknown as { state: { governance: never } }).state.governance;
const vars = { 'provisa.user_region': 'eu' };
const med = async (f: () => Promise<unknown>) => { const ts = []; for (let i = 0; i < 7; i++) { const t = performance.now(); await f(); ts.push(performance.now() - t); } ts.sort((a, b) => a - b); return ts[3]!.toFixed(1); };
const q = async () => { const r = await inst.query({ sql, role: 'analyst', vars }, new AbortController().signal); for await (const _ of r.batches) void _; return r.headers; };
await q(); await new Promise((r) => setTimeout(r, 300));
console.log('headers', await q());
console.log('full query', await med(q));
const hotRel = (k: string) => (k === 'bench.dims' ? inst.hot!.binding(k)?.relation : undefined);
console.log('plan only', await med(async () => planQuery({ sql, role: 'analyst', vars }, gov, { hotRelation: hotRel })));
for (let i = 0; i < 50 && !inst.hot!.binding('bench.dims'); i++) await new Promise((r) => setTimeout(r, 100));
const p = planQuery({ sql, role: 'analyst', vars }, gov, { hotRelation: hotRel });
if (!p.sql.includes('__shoal_hot')) throw new Error('not hot');
console.log(p.sql);
console.log('engine exec', await med(async () => { for await (const _ of inst.engine.execute(p.sql, { pushdown: p.pushdown })) void _; }));
console.log('raw duckdb', await med(async () => rc.runAndReadAll(`SELECT d.label, count(*) FROM read_parquet('${join(dir, 'facts.parquet')}') f JOIN (SELECT i AS id, 'label-' || (i % 50) AS label FROM range(1000) t(i) WHERE i % 3 = 0) d ON d.id = f.dim_id GROUP BY 1 ORDER BY 1`)));
const live = await ShoalInstance.start({ config, baseDir: dir, pollMs: 60_000, importConfig: false, hot: false });
const pl = planQuery({ sql, role: 'analyst', vars }, gov, {});
for (let k = 0; k < 2; k++) {
  console.log('hot exec', await med(async () => { for await (const _ of inst.engine.execute(p.sql, { pushdown: p.pushdown })) void _; }));
  console.log('live exec', await med(async () => { for await (const _ of live.engine.execute(pl.sql, { pushdown: pl.pushdown })) void _; }));
}
const dimOnly = 'SELECT d.label, count(*) AS n FROM bench.dims d GROUP BY d.label';
const ph = planQuery({ sql: dimOnly, role: 'analyst', vars }, gov, { hotRelation: hotRel, route: 'engine' });
const pll = planQuery({ sql: dimOnly, role: 'analyst', vars }, gov, { route: 'engine' });
console.log('dim-only hot exec', await med(async () => { for await (const _ of inst.engine.execute(ph.sql, { pushdown: ph.pushdown })) void _; }));
console.log('dim-only live exec', await med(async () => { for await (const _ of live.engine.execute(pll.sql, { pushdown: pll.pushdown })) void _; }));
await live.close();
await inst.close();
