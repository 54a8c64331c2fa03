/**
 * server.limits through the HTTP API of a real instance (registry, DuckDB, SQL pipeline): texts
 * over the SQL limits are refused before planning with their own codes and statuses; an engine
 * query past request_timeout is interrupted and answered 504, and the engine serves the next
 * query; the engine runs under the configured memory_limit and max_temp_directory_size, and a
 * query that needs more memory is a 503; /live answers while a maximal query is in flight.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { DEFAULT_LIMITS } from '../../../src/shoal/config/limits.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { measureSql } from '../../../src/shoal/sql/sql-limits.js';
import { buildApp } from '../../../src/shoal/server/app.js';

const ROWS = 3000;

describe('server.limits through a real instance', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-limits-'));
  const opened: { instance: ShoalInstance; app: FastifyInstance }[] = [];

  const start = async (name: string, limits: string) => {
    writeFileSync(join(dir, `${name}.yaml`), `control_plane: {tenant_url: "sqlite:///${name}.db"}
auth: {provider: none}
server: {limits: ${limits}}
cache: {enabled: false}
domains: [{id: ops}]
sources: [{id: nums, type: csv, path: nums.csv}]
tables:
  - {source_id: nums, domain_id: ops, table: nums, hot: false, columns: [{name: id, data_type: bigint}, {name: label, data_type: varchar}]}
roles:
  - {id: admin, capabilities: [admin, query_development, full_results], domain_access: ["*"]}
`);
    const { config } = loadConfig({ path: join(dir, `${name}.yaml`) });
    const instance = await ShoalInstance.start({ config, baseDir: dir, mv: { tickMs: 0 }, hot: false, resultCache: false });
    const app = await buildApp({ service: instance });
    opened.push({ instance, app });
    return { instance, app };
  };
  const post = async (app: FastifyInstance, sql: string) => {
    const r = await app.inject({ method: 'POST', url: '/data/sql', payload: { sql, role: 'admin' } });
    return { status: r.statusCode, body: r.json() as { rows?: unknown[][]; error?: { code: string; message: string } } };
  };

  let strict: { instance: ShoalInstance; app: FastifyInstance };
  let roomy: { instance: ShoalInstance; app: FastifyInstance };
  let plain: { instance: ShoalInstance; app: FastifyInstance };

  beforeAll(async () => {
    writeFileSync(join(dir, 'nums.csv'), `id,label\n${Array.from({ length: ROWS }, (_, i) => `${i},n${i}`).join('\n')}\n`);
    strict = await start('strict', '{request_timeout: 1, max_sql_bytes: 2048, max_sql_literals: 20, max_sql_tokens: 300, max_sql_depth: 6}');
    roomy = await start('roomy', '{memory_limit: 64MB, max_temp_directory_size: 32MB}');
    plain = await start('plain', '{}');
  }, 60_000);

  afterAll(async () => {
    for (const o of opened) {
      await o.app.close();
      await o.instance.close();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    [413, 'SQL_TOO_LARGE', `SELECT id FROM ops.nums WHERE label = '${'x'.repeat(3000)}'`],
    [400, 'SQL_TOO_MANY_LITERALS', `SELECT id FROM ops.nums WHERE id IN (${Array.from({ length: 21 }, (_, i) => i).join(', ')})`],
    [400, 'SQL_TOO_MANY_TOKENS', `SELECT id FROM ops.nums WHERE ${Array.from({ length: 80 }, () => 'id = id').join(' AND ')}`],
    [400, 'SQL_TOO_DEEP', 'SELECT id FROM ops.nums WHERE id = (((((((1)))))))'],
  ])('a text over a SQL limit is refused before planning: %i %s', async (status, code, sql) => {
    const r = await post(strict.app, sql);
    expect(r.status).toBe(status);
    expect(r.body.error?.code).toBe(code);
    expect(r.body.error?.message).toMatch(/at most \d+/);
  });

  it('an engine query past request_timeout is interrupted and answered 504, and the engine serves the next query', async () => {
    const r = await post(strict.app, 'SELECT count(*) AS n FROM ops.nums a, ops.nums b, ops.nums c WHERE a.id + b.id + c.id = -1');
    expect(r.status).toBe(504);
    expect(r.body.error?.code).toBe('QUERY_TIMEOUT');
    // the same engine answers next (asked directly: a loaded test host may plan slower than this instance's 1 s deadline)
    const rows: unknown[] = [];
    for await (const b of strict.instance.engine.execute('SELECT count(*) AS n FROM ops.nums')) rows.push(...b.rows);
    expect(rows).toEqual([[String(ROWS)]]);
  }, 30_000);

  it('the engine runs under memory_limit and max_temp_directory_size, and a query needing more memory is a 503', async () => {
    const settings: unknown[] = [];
    for await (const b of roomy.instance.engine.execute("SELECT current_setting('memory_limit') AS m, current_setting('max_temp_directory_size') AS t")) settings.push(...b.rows);
    expect(settings).toEqual([['61.0 MiB', '30.5 MiB']]);
    const r = await post(roomy.app, "SELECT count(*) AS n FROM (SELECT string_agg(a.label || b.label, ',') AS l FROM ops.nums a, ops.nums b GROUP BY a.id % 2) s");
    expect(r.status, JSON.stringify(r.body)).toBe(503);
    expect(r.body.error?.code).toBe('QUERY_MEMORY_LIMIT');
    expect(r.body.error?.message).not.toContain('MiB');
  }, 60_000);

  it('/live answers while a maximal-but-allowed query is in flight', async () => {
    const url = await plain.app.listen({ host: '127.0.0.1', port: 0 });
    const order: string[] = [];
    // each conjunct is 11 tokens; fill 90% of the default token limit
    const n = Math.floor((0.9 * DEFAULT_LIMITS.max_sql_tokens - 20) / 11);
    const conjuncts = Array.from({ length: n }, (_, i) => `a.id + b.id <> ${-1 - i}`).join(' AND ');
    const sql = `SELECT count(*) AS n FROM ops.nums a, ops.nums b WHERE b.id < 20 AND ${conjuncts}`;
    // maximal but allowed: near the default token limit, within the others
    const m = measureSql(sql);
    expect(m.tokens).toBeGreaterThan(0.85 * DEFAULT_LIMITS.max_sql_tokens);
    expect(m.tokens).toBeLessThanOrEqual(DEFAULT_LIMITS.max_sql_tokens);
    expect(m.literals).toBeLessThanOrEqual(DEFAULT_LIMITS.max_sql_literals);
    const query = fetch(`${url}/data/sql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-provisa-role': 'admin' },
      body: JSON.stringify({ sql }),
    }).then(async (r) => {
      order.push(`query ${r.status}`);
      const text = await r.text();
      if (r.status !== 200) order.push(text);
      return text;
    });
    const live = await fetch(`${url}/live`);
    order.push(`live ${live.status}`);
    await query;
    expect(order).toEqual(['live 200', 'query 200']);
  }, 60_000);
});
