/**
 * The limits through the HTTP API of a real instance over a real PostgreSQL and MariaDB (direct
 * routes to views that sleep or count for a long time): a client that goes away gets its source
 * statement cancelled at the server (it leaves pg_stat_activity / the processlist) and the pool
 * serves the next query; a request past server.limits.request_timeout is a 504 QUERY_TIMEOUT and
 * its statement is stopped; a data error in the user's SQL is a 400 naming its class.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../../src/shoal/instance/instance.js';
import { buildApp } from '../../../../src/shoal/server/app.js';
import { service } from '../../../support/service.js';

const postgres = service('postgres');
const mariadb = service('mariadb');
const SCHEMA = `shoal_limits_http_${process.pid}`;
const DB = `shoal_limits_http_${process.pid}`;

async function eventually(check: () => Promise<boolean>, what: string, tries = 400): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never: ${what}`);
}

describe.skipIf(postgres.skip || mariadb.skip)('limits over HTTP against real sources', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-limits-http-'));
  let pgAdmin: pg.Client;
  let myAdmin: mysql.Connection;
  const started: { instance: ShoalInstance; app: FastifyInstance; url: string }[] = [];

  const start = async (name: string, limits: string): Promise<string> => {
    const pgUrl = new URL(postgres.url as string);
    const myUrl = new URL(mariadb.url as string);
    writeFileSync(join(dir, `${name}.yaml`), `control_plane: {tenant_url: "sqlite:///${name}-registry.db"}
auth: {provider: none}
${limits}
cache: {enabled: false}
domains: [{id: ops}]
sources:
  - {id: pg, type: postgresql, host: ${pgUrl.hostname}, port: ${pgUrl.port}, database: ${pgUrl.pathname.slice(1)}, username: ${decodeURIComponent(pgUrl.username)}}
  - {id: maria, type: mariadb, host: ${myUrl.hostname}, port: ${myUrl.port}, database: ${DB}, username: ${decodeURIComponent(myUrl.username)}}
tables:
  - {source_id: pg, domain_id: ops, schema: ${SCHEMA}, table: slow, hot: false, columns: [{name: id, data_type: integer}, {name: waited, data_type: varchar}]}
  - {source_id: pg, domain_id: ops, schema: ${SCHEMA}, table: people, hot: false, columns: [{name: id, data_type: integer}, {name: name, data_type: varchar}]}
  - {source_id: maria, domain_id: ops, table: busy, alias: maria_busy, hot: false, columns: [{name: n, data_type: bigint}]}
roles:
  - {id: admin, capabilities: [admin, query_development, full_results], domain_access: ["*"]}
`);
    const { config } = loadConfig({ path: join(dir, `${name}.yaml`) });
    const instance = await ShoalInstance.start({ config, baseDir: dir, mv: { tickMs: 0 }, hot: false, resultCache: false });
    const app = await buildApp({ service: instance });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    started.push({ instance, app, url });
    return url;
  };

  const ask = (url: string, sql: string, signal?: AbortSignal) =>
    fetch(`${url}/data/sql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-provisa-role': 'admin' }, body: JSON.stringify({ sql }), ...(signal ? { signal } : {}) });
  const pgRunning = async (): Promise<number> =>
    Number((await pgAdmin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%slow%' AND application_name = 'shoal'")).rows[0].n);
  const myRunning = async (): Promise<number> => {
    const [rows] = await myAdmin.query("SELECT count(*) AS n FROM information_schema.processlist WHERE command = 'Query' AND info LIKE '%busy%' AND id <> connection_id()");
    return Number((rows as { n: number }[])[0]!.n);
  };

  let relaxed: string;
  let strict: string;

  beforeAll(async () => {
    pgAdmin = new pg.Client({ connectionString: postgres.url });
    await pgAdmin.connect();
    await pgAdmin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; CREATE SCHEMA ${SCHEMA};
      CREATE VIEW ${SCHEMA}.slow AS SELECT 1 AS id, pg_sleep(30)::text AS waited;
      CREATE TABLE ${SCHEMA}.people (id integer, name varchar); INSERT INTO ${SCHEMA}.people VALUES (1, 'abc-private'), (2, 'def')`);
    myAdmin = await mysql.createConnection({ uri: mariadb.url as string, multipleStatements: true });
    await myAdmin.query(`DROP DATABASE IF EXISTS ${DB}; CREATE DATABASE ${DB}; CREATE VIEW ${DB}.busy AS SELECT count(*) AS n FROM seq_1_to_1000000000000 WHERE MOD(seq, 7) = 3`);
    relaxed = await start('relaxed', '');
    strict = await start('strict', 'server: {limits: {request_timeout: 1}}');
  }, 120_000);

  afterAll(async () => {
    for (const s of started) {
      await s.app.close().catch(() => undefined);
      await s.instance.close().catch(() => undefined);
    }
    await pgAdmin?.query(`SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%slow%' AND application_name = 'shoal'`).catch(() => undefined);
    await pgAdmin?.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`).catch(() => undefined);
    await pgAdmin?.end();
    const [left] = (await myAdmin?.query("SELECT id FROM information_schema.processlist WHERE info LIKE '%seq_1_to_%' AND id <> connection_id()")) ?? [[]];
    for (const r of left as { id: number }[]) await myAdmin.query(`KILL QUERY ${Number(r.id)}`).catch(() => undefined);
    await myAdmin?.query(`DROP DATABASE IF EXISTS ${DB}`).catch(() => undefined);
    await myAdmin?.end();
    rmSync(dir, { recursive: true, force: true });
  });

  it('PostgreSQL: clients that go away get their statements cancelled, and the pool serves the next query', async () => {
    const clients = Array.from({ length: 5 }, () => new AbortController());
    const pending = clients.map((c) => ask(relaxed, 'SELECT id, waited FROM ops.slow', c.signal).catch((e: unknown) => e));
    await eventually(async () => (await pgRunning()) === 5, 'five slow statements running at PostgreSQL');
    for (const c of clients) c.abort();
    await Promise.all(pending);
    await eventually(async () => (await pgRunning()) === 0, 'the abandoned statements left pg_stat_activity');
    const next = await ask(relaxed, 'SELECT id, name FROM ops.people ORDER BY id');
    expect(next.status).toBe(200);
    expect(((await next.json()) as { rows: unknown[][] }).rows).toEqual([[1, 'abc-private'], [2, 'def']]);
  }, 60_000);

  it('MariaDB: clients that go away get their statements killed, and the pool serves the next query', async () => {
    const clients = Array.from({ length: 5 }, () => new AbortController());
    const pending = clients.map((c) => ask(relaxed, 'SELECT n FROM ops.maria_busy', c.signal).catch((e: unknown) => e));
    await eventually(async () => (await myRunning()) === 5, 'five long counts running at MariaDB');
    for (const c of clients) c.abort();
    await Promise.all(pending);
    await eventually(async () => (await myRunning()) === 0, 'the abandoned statements left the processlist');
    await myAdmin.query(`CREATE OR REPLACE VIEW ${DB}.busy AS SELECT 7 AS n`);
    const next = await ask(relaxed, 'SELECT n FROM ops.maria_busy');
    expect(next.status).toBe(200);
    expect(((await next.json()) as { rows: unknown[][] }).rows).toEqual([[7]]);
    await myAdmin.query(`CREATE OR REPLACE VIEW ${DB}.busy AS SELECT count(*) AS n FROM seq_1_to_1000000000000 WHERE MOD(seq, 7) = 3`);
  }, 60_000);

  it('a request past request_timeout is a 504 QUERY_TIMEOUT, and its statement is stopped at the source', async () => {
    const r = await ask(strict, 'SELECT id, waited FROM ops.slow');
    expect(r.status).toBe(504);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('QUERY_TIMEOUT');
    await eventually(async () => (await pgRunning()) === 0, 'the timed-out statement left pg_stat_activity');
    const m = await ask(strict, 'SELECT n FROM ops.maria_busy');
    expect(m.status).toBe(504);
    expect(((await m.json()) as { error: { code: string } }).error.code).toBe('QUERY_TIMEOUT');
    await eventually(async () => (await myRunning()) === 0, 'the timed-out statement left the processlist');
  }, 60_000);

  it("a data error in the user's SQL on a direct route is a 400 naming the class, never the value", async () => {
    for (const [sql, state] of [
      ['SELECT CAST(name AS integer) AS n FROM ops.people', '22P02'],
      ['SELECT id / (id - id) AS q FROM ops.people', '22012'],
    ] as const) {
      const r = await ask(relaxed, sql);
      const body = (await r.json()) as { error: { code: string; message: string } };
      expect(r.headers.get('x-shoal-route') ?? 'direct:pg').toBe('direct:pg');
      expect(r.status, sql).toBe(400);
      expect(body.error.code).toBe('SQL_DATA_EXCEPTION');
      expect(body.error.message).toContain(state);
      expect(JSON.stringify(body)).not.toContain('abc-private');
    }
  }, 60_000);

  it("a grouping or typing mistake of the user's own SQL that the source rejects on a direct route is a 400 SQL_INVALID_QUERY", async () => {
    for (const sql of ['SELECT name, count(*) AS n FROM ops.people GROUP BY id', 'SELECT id FROM ops.people WHERE max(id) > 1']) {
      const r = await ask(relaxed, sql);
      const body = (await r.json()) as { error: { code: string; message: string } };
      expect(r.status, sql).toBe(400);
      expect(body.error.code).toBe('SQL_INVALID_QUERY');
      expect(JSON.stringify(body)).not.toContain('abc-private');
    }
  }, 60_000);
});
