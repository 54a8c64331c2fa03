/**
 * Planning never holds the event loop: a real `shoal serve` process is sent several of the
 * longest texts the SQL limits accept (an AND chain at the token limit, the parser's worst
 * shape) at once, and `/live` and `/metrics` answer while they are being planned — observed by
 * order, not by timing: a `/metrics` rendered meanwhile reports requests in planning, which an
 * instance planning on its event loop can never do (it renders nothing until the plan is done).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../../../src/shoal/config/limits.js';
import { measureSql } from '../../../../src/shoal/sql/sql-limits.js';
import { startServer, type ServerProcess } from '../../../support/processes.js';
import { freePort } from '../../../support/services.js';

const gauge = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

/** The longest `AND` chain within the token limit; `salt` keeps each text distinct (no cache answers it). */
function andChainAtTokenLimit(salt: number): string {
  const make = (n: number) => `SELECT id FROM ops.nums WHERE ${Array.from({ length: n }, (_, i) => `id <> ${salt * 1000 + i}`).join(' AND ')}`;
  let n = 1;
  while (measureSql(make(n + 1)).tokens <= DEFAULT_LIMITS.max_sql_tokens) n++;
  return make(n);
}

describe('planning off the event loop (shoal serve)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-planning-loop-'));
  let server: ServerProcess;

  beforeAll(async () => {
    writeFileSync(join(dir, 'nums.csv'), 'id,label\n1,a\n2,b\n3,hidden\n');
    writeFileSync(join(dir, 'shoal.yaml'), `control_plane: {tenant_url: "sqlite:///registry.db"}
auth: {provider: none}
domains: [{id: ops}]
sources: [{id: nums, type: csv, path: nums.csv}]
tables:
  - {source_id: nums, domain_id: ops, table: nums, hot: false, columns: [{name: id, data_type: bigint}, {name: label, data_type: varchar}]}
roles:
  - {id: analyst, capabilities: [query_development], domain_access: [ops]}
rls_rules:
  - {table_id: nums, role_id: analyst, filter: "label <> 'hidden'"}
`);
    const port = await freePort();
    server = await startServer(['serve', '--config', join(dir, 'shoal.yaml'), '--port', String(port)], { cwd: dir, port, env: { SHOAL_MV_TICK_MS: '0' } });
  }, 120_000);

  afterAll(async () => {
    await server?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('/live and /metrics answer while maximal texts are being planned, before any of them is answered', async () => {
    const heavy = Array.from({ length: 4 }, (_, k) => andChainAtTokenLimit(k + 1));
    expect(measureSql(heavy[0]!).tokens).toBeGreaterThan(DEFAULT_LIMITS.max_sql_tokens - 8);
    let answered = 0;
    const requests = heavy.map(async (sql) => {
      const r = await fetch(`${server.url}/data/sql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-provisa-role': 'analyst' }, body: JSON.stringify({ sql }) });
      const body = (await r.json()) as { rows?: unknown[][] };
      answered++;
      return { status: r.status, rows: body.rows };
    });
    // poll until a probe is answered while a heavy text is in planning and none has been answered
    let observed = false;
    while (!observed && answered === 0) {
      const live = await fetch(`${server.url}/live`);
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      observed = live.status === 200 && (gauge(metrics, 'shoal_planning_in_flight') ?? 0) >= 1 && answered === 0;
    }
    const results = await Promise.all(requests);
    expect(observed).toBe(true);
    // the texts were planned in full and governed: the hidden row is filtered out
    for (const r of results) expect(r).toEqual({ status: 200, rows: [[1], [2]] });
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(gauge(metrics, 'shoal_plans_total{planner="thread"}')).toBeGreaterThanOrEqual(heavy.length);
    expect(gauge(metrics, 'shoal_planning_in_flight')).toBe(0);
    expect(gauge(metrics, 'shoal_event_loop_lag_seconds{quantile="1"}')).toBeGreaterThanOrEqual(0);
  });

  it('a short text is planned on the event loop, and /health answers', async () => {
    const r = await fetch(`${server.url}/data/sql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-provisa-role': 'analyst' }, body: JSON.stringify({ sql: 'SELECT count(*) AS n FROM ops.nums' }) });
    expect(await r.json()).toMatchObject({ rows: [[2]] });
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(gauge(metrics, 'shoal_plans_total{planner="event_loop"}')).toBeGreaterThanOrEqual(1);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });
});
