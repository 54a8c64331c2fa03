/**
 * Types and names as PostgreSQL gives them, on every route (law S6): the same query over the
 * same rows answers with the same body — column names, column types, and cells — whether it
 * runs directly on PostgreSQL, MariaDB or SQLite, on the engine over each of them landed, from
 * an MV snapshot, or from the result cache. Decimals keep their scale as strings
 * (`numeric(12,2)` 851.50 is "851.50"), timestamptz is typed `timestamptz` with a `+00` offset,
 * `now()` is named `now`, and `* EXCLUDE` is refused with the same error everywhere.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/shoal/check/load-config.js';
import { ShoalError } from '../../../../src/shoal/errors.js';
import { ShoalInstance } from '../../../../src/shoal/instance/instance.js';
import { toWireValue } from '../../../../src/shoal/server/json-value.js';
import { service } from '../../../support/service.js';

const postgres = service('postgres');
const mariadb = service('mariadb');
const DB = 'shoal_route_types';
const ROWS = "(1, 851.50, 'a'), (2, 10.00, 'b'), (3, -0.05, 'c'), (4, NULL, NULL)";

interface Answer { route: string; columns: { name: string; type: string }[]; rows: unknown[][]; cache?: string; mv?: string }

async function ask(instance: ShoalInstance, sql: string, role = 'admin'): Promise<Answer> {
  const r = await instance.query({ sql, role, vars: {} }, new AbortController().signal);
  const rows: unknown[][] = [];
  // compared in their wire form (what POST /data/sql sends)
  for await (const b of r.batches) rows.push(...b.map((x) => x.map(toWireValue)));
  return {
    route: r.headers?.['x-shoal-route'] ?? '', columns: r.columns.map((c) => ({ ...c })), rows,
    ...(r.headers?.['x-provisa-cache'] ? { cache: r.headers['x-provisa-cache'] } : {}),
    ...(r.headers?.['x-shoal-mv'] ? { mv: r.headers['x-shoal-mv'] } : {}),
  };
}

async function refusal(p: Promise<unknown>): Promise<ShoalError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ShoalError) return e;
    throw e;
  }
  throw new Error('expected a ShoalError');
}

describe.skipIf(postgres.skip || mariadb.skip)('types and names on every route', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-route-types-'));
  let instance: ShoalInstance;
  let pgc: pg.Client;
  let my: mysql.Connection;

  beforeAll(async () => {
    pgc = new pg.Client({ connectionString: postgres.url });
    await pgc.connect();
    await pgc.query(`DROP SCHEMA IF EXISTS ${DB} CASCADE; CREATE SCHEMA ${DB}`);
    await pgc.query(`CREATE TABLE ${DB}.t (id integer, amount numeric(12,2), label varchar(10), at timestamptz)`);
    await pgc.query(`INSERT INTO ${DB}.t (id, amount, label) VALUES ${ROWS}`);
    await pgc.query(`UPDATE ${DB}.t SET at = TIMESTAMPTZ '2024-01-02 03:04:05.123+00' + (id || ' hours')::interval WHERE id < 4`);
    my = await mysql.createConnection({ uri: mariadb.url! });
    await my.query(`DROP DATABASE IF EXISTS ${DB}`);
    await my.query(`CREATE DATABASE ${DB} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    await my.query(`CREATE TABLE ${DB}.t (id INT, amount DECIMAL(12,2), label VARCHAR(10))`);
    await my.query(`INSERT INTO ${DB}.t VALUES ${ROWS}`);
    const lite = new Database(join(dir, 'lite.db'));
    lite.exec(`CREATE TABLE t (id INTEGER, amount REAL, label TEXT); INSERT INTO t VALUES ${ROWS}`);
    lite.close();
    writeFileSync(join(dir, 'one.csv'), 'k\n1\n');
    const pgUrl = new URL(postgres.url!);
    const myUrl = new URL(mariadb.url!);
    const cols = `[{name: id, data_type: integer}, {name: amount, data_type: "numeric(12,2)"}, {name: label, data_type: varchar}]`;
    writeFileSync(join(dir, 'shoal.yaml'), `control_plane: {tenant_url: "sqlite:///registry.db"}
cache: {enabled: true, default_ttl: 600}
auth: {provider: none}
domains: [{id: s}]
sources:
  - {id: pg, type: postgresql, host: "${pgUrl.hostname}", port: ${pgUrl.port}, database: "${pgUrl.pathname.slice(1)}", username: "${decodeURIComponent(pgUrl.username)}"}
  - {id: my, type: mariadb, host: "${myUrl.hostname}", port: ${myUrl.port}, database: ${DB}, username: "${decodeURIComponent(myUrl.username)}"${myUrl.password ? `, password: "\${env:SHOAL_TYPES_MY_PASSWORD}"` : ''}}
  - {id: lite, type: sqlite, path: lite.db}
  - {id: one, type: csv, path: one.csv}
tables:
  - {source_id: pg, domain_id: s, schema: ${DB}, table: t, alias: pg_t, columns: [{name: id, data_type: integer}, {name: amount, data_type: "numeric(12,2)"}, {name: label, data_type: varchar}, {name: at, data_type: timestamptz}]}
  - {source_id: my, domain_id: s, schema: ${DB}, table: t, alias: my_t, columns: ${cols}}
  - {source_id: lite, domain_id: s, table: t, alias: lite_t, columns: ${cols}}
  - {source_id: one, domain_id: s, table: one, columns: [{name: k, data_type: integer}]}
  - source_id: __derived__
    domain_id: s
    table: mv_t
    materialize: true
    view_sql: 'SELECT id, amount, label, "at" FROM "pg"."${DB}"."t"'
    columns: [{name: id, data_type: integer}, {name: amount, data_type: "numeric(12,2)"}, {name: label, data_type: varchar}, {name: at, data_type: timestamptz}]
roles:
  - {id: admin, capabilities: [admin, full_results], domain_access: ["*"]}
`);
    const env = { ...process.env, SHOAL_TYPES_MY_PASSWORD: decodeURIComponent(myUrl.password) };
    instance = await ShoalInstance.start({
      config: loadConfig({ path: join(dir, 'shoal.yaml') }, env).config,
      env,
      baseDir: dir, mv: { tickMs: 0 }, hot: false,
    });
  }, 120_000);

  afterAll(async () => {
    await instance?.close();
    await pgc?.query(`DROP SCHEMA IF EXISTS ${DB} CASCADE`).catch(() => undefined);
    await pgc?.end();
    await my?.query(`DROP DATABASE IF EXISTS ${DB}`).catch(() => undefined);
    await my?.end();
    rmSync(dir, { recursive: true, force: true });
  });

  // each query over table X, and its engine-route twin (a join with the one-row CSV forces the engine)
  const direct = (x: string, select: string, tail = '') => `SELECT ${select} FROM s.${x} t${tail}`;
  const engine = (x: string, select: string, tail = '') => `SELECT ${select} FROM s.${x} t JOIN s.one o ON o.k = 1${tail}`;
  const QUERIES: readonly (readonly [select: string, tail?: string])[] = [
    ['t.id, t.amount, t.label', ' ORDER BY t.id'],
    ['t.id, t.amount * 2, t.amount + 1, -t.amount, upper(t.label), substr(t.label, 1, 1)', ' ORDER BY t.id'],
    ['sum(t.amount), min(t.amount), max(t.amount), count(*), count(t.amount)'],
    ['t.label, sum(t.amount) AS total', ' GROUP BY t.label ORDER BY t.label'],
  ];

  it('decimals keep their scale and names and types are PostgreSQL\'s: direct and engine, on PostgreSQL, MariaDB and SQLite', async () => {
    for (const [select, tail] of QUERIES) {
      const answers: Answer[] = [];
      for (const x of ['pg_t', 'my_t', 'lite_t']) {
        answers.push(await ask(instance, direct(x, select, tail)), await ask(instance, engine(x, select, tail)));
      }
      const routes = answers.map((a) => a.route);
      // a direct twin ran directly (where the construct is certified for that source; else it is the engine's)
      expect(routes.filter((r) => r.startsWith('direct:')).length, `${select}: ${routes.join(', ')}`).toBeGreaterThanOrEqual(1);
      const [first, ...rest] = answers;
      for (const [i, a] of rest.entries()) {
        expect({ columns: a.columns, rows: a.rows }, `${select} on ${routes[i + 1]} vs ${routes[0]}`).toEqual({ columns: first!.columns, rows: first!.rows });
      }
    }
    const all = await Promise.all(['pg_t', 'my_t', 'lite_t'].map((x) => ask(instance, direct(x, 't.id, t.amount', ' ORDER BY t.id'))));
    expect(all.map((a) => a.route)).toEqual(['direct:pg', 'direct:my', 'direct:lite']);
    const base = await ask(instance, direct('pg_t', 't.id, t.amount', ' ORDER BY t.id'));
    expect(base.route).toBe('direct:pg');
    expect(base.columns).toEqual([{ name: 'id', type: 'integer' }, { name: 'amount', type: 'numeric(12,2)' }]);
    expect(base.rows).toEqual([[1, '851.50'], [2, '10.00'], [3, '-0.05'], [4, null]]);
  }, 300_000);

  it('timestamptz is typed timestamptz and prints with its offset; now() is named now and typed timestamptz, on both routes', async () => {
    const d = await ask(instance, direct('pg_t', 't.id, t.at, now(), current_timestamp, current_date', ' ORDER BY t.id'));
    const e = await ask(instance, engine('pg_t', 't.id, t.at, now(), current_timestamp, current_date', ' ORDER BY t.id'));
    expect([d.route, e.route]).toEqual(['direct:pg', 'engine']);
    const want = [{ name: 'id', type: 'integer' }, { name: 'at', type: 'timestamptz' }, { name: 'now', type: 'timestamptz' }, { name: 'current_timestamp', type: 'timestamptz' }, { name: 'current_date', type: 'date' }];
    expect(d.columns).toEqual(want);
    expect(e.columns).toEqual(want);
    expect(d.rows[0]![1]).toBe('2024-01-02 04:04:05.123+00');
    expect(e.rows.map((r) => r[1])).toEqual(d.rows.map((r) => r[1]));
    for (const r of [...d.rows, ...e.rows]) expect(String(r[2])).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?\+00$/);
    // a real PostgreSQL names and types the same expressions the same way
    const real = await pgc.query(`SELECT t.at, now(), current_timestamp, current_date FROM ${DB}.t t LIMIT 1`);
    expect(real.fields.map((f) => f.name)).toEqual(['at', 'now', 'current_timestamp', 'current_date']);
    expect(real.fields.map((f) => f.dataTypeID)).toEqual([1184, 1184, 1184, 1082]);
  }, 120_000);

  it('an MV snapshot and a result-cache HIT give the body the live query gives', async () => {
    const q = 'SELECT m.id, m.amount, m.label, m.at FROM s.mv_t m ORDER BY m.id';
    const live = await ask(instance, q);
    expect(live.mv).toBe('s.mv_t=live');
    expect(await instance.mvs!.refresh('s.mv_t')).toMatchObject({ outcome: 'refreshed' });
    const snap = await ask(instance, q);
    expect(snap.mv).toMatch(/^s\.mv_t=snapshot:/);
    expect({ columns: snap.columns, rows: snap.rows }).toEqual({ columns: live.columns, rows: live.rows });
    expect(snap.rows[0]).toEqual([1, '851.50', 'a', '2024-01-02 04:04:05.123+00']);
    const src = await ask(instance, 'SELECT t.id, t.amount, t.label, t.at FROM s.pg_t t ORDER BY t.id');
    expect(src.rows).toEqual(live.rows);
    for (const sql of ['SELECT t.id, t.amount, t.label, t.at FROM s.pg_t t ORDER BY t.id', 'SELECT t.id, t.amount, t.label FROM s.my_t t JOIN s.one o ON o.k = 1 ORDER BY t.id']) {
      const first = await ask(instance, sql);
      const again = await ask(instance, sql);
      expect(again.cache, sql).toBe('HIT');
      expect({ columns: again.columns, rows: again.rows }).toEqual({ columns: first.columns, rows: first.rows });
      expect(again.rows[0]![1]).toBe('851.50');
    }
  }, 120_000);

  it('* EXCLUDE is refused with the same typed error on every route', async () => {
    for (const sql of ['SELECT * EXCLUDE (label) FROM s.pg_t', 'SELECT * EXCLUDE (label) FROM s.my_t', 'SELECT * EXCLUDE (label) FROM s.lite_t',
      'SELECT t.* EXCLUDE (label) FROM s.pg_t t JOIN s.one o ON o.k = 1', 'SELECT * EXCLUDE (label) FROM s.mv_t']) {
      const e = await refusal(ask(instance, sql));
      expect(e.code, sql).toBe('SQL_UNSUPPORTED');
      expect(e.message).toMatch(/EXCLUDE/);
    }
  });
});
