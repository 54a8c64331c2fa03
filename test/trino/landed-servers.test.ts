/**
 * PostgreSQL and MariaDB landed on Trino, against real servers (started here from the installed
 * binaries, or PG_URL / MYSQL_URL): for generated governed queries and every viewer, a
 * `federation_engine: trino` instance gives the DuckDB instance's multiset over the same source
 * (same masking, no row outside RLS), or fails closed; and through the Trino instance's own
 * pipeline an analyst sees only its region, with emails masked. With CI=true a missing server
 * fails the file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/shoal/config/load-config.js';
import type { LandingReport } from '../../src/shoal/engine/engine.js';
import type { TrinoEngine } from '../../src/shoal/engine/trino/trino-engine.js';
import { ShoalInstance } from '../../src/shoal/instance/instance.js';
import { type GovernanceCatalog, catalogFromConfig, planQuery } from '../../src/shoal/sql/index.js';
import { salesData, serverTableSql } from '../shoal/sql/duckdb-harness.js';
import { collect, lawQueryArb, salesConfigYaml, viewerArb } from '../shoal/sql/pushdown-law.js';
import { type Missing, type Running, isMissing, startMariadb, startPostgres } from '../support/services.js';
import { TRINO_FAILS_CLOSED_CODES, canon, governedOutcome } from './governed-outcome.js';
import { readyTrino, trinoAvailable } from './trino-context.js';

const DB = `shoal_trino_landed_${process.pid}`;
const data = salesData();

async function server(start: () => Promise<Running | Missing>): Promise<Running | undefined> {
  if (!trinoAvailable()) return undefined;
  const s = await start();
  if (!isMissing(s)) return s;
  if (process.env.CI === 'true') throw new Error(`CI=true and ${s.name} is missing: ${s.missing}`);
  process.stderr.write(`\n${'!'.repeat(78)}\n${s.name.toUpperCase()} MISSING — its Trino landing tests are SKIPPED: ${s.missing}\n${'!'.repeat(78)}\n`);
  return undefined;
}

const postgres = await server(startPostgres);
const mariadb = await server(startMariadb);

/** A DuckDB and a Trino instance over one source holding `salesData()`; the law and the pipeline checks. */
function parity(name: string, sourceLine: () => string, schema?: string): void {
  describe(`${name} landed on Trino`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-trino-landed-'));
    let duck: ShoalInstance;
    let trino: ShoalInstance;
    let governance: GovernanceCatalog;

    beforeAll(async () => {
      const info = await readyTrino();
      const yaml = salesConfigYaml(sourceLine(), schema);
      governance = catalogFromConfig(loadConfig(yaml).config);
      const start = async (extra: string, registry: string) => {
        const { config } = loadConfig(`${extra}${yaml.replace('sqlite:///registry.db', `sqlite:///${registry}`)}`);
        return ShoalInstance.start({ config, baseDir: dir, pollMs: 60_000, mv: { tickMs: 0 }, hot: false, resultCache: false });
      };
      duck = await start('', 'duck.db');
      trino = await start(`federation_engine: trino\nfederation_engine_url: ${info.url}\nfederation_engine_scratch_dir: scratch\n`, 'trino.db');
      expect(trino.engine.name).toBe('trino');
    });
    afterAll(async () => {
      await duck?.close();
      await trino?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('a governed query gives the same multiset on both engines, for every viewer (or Trino fails closed)', async () => {
      let compared = 0;
      await fc.assert(
        fc.asyncProperty(lawQueryArb, viewerArb, async (sql, viewer) => {
          const d = await governedOutcome(duck, governance, sql, viewer);
          const t = await governedOutcome(trino, governance, sql, viewer);
          if (d.ok && t.ok) {
            compared++;
            expect(t.rows, `${viewer.role} ${JSON.stringify(viewer.vars)}: ${sql}`).toEqual(d.rows);
          } else if (d.ok && !t.ok) expect(TRINO_FAILS_CLOSED_CODES).toContain(t.code);
        }),
        { numRuns: 15, seed: 15 },
      );
      expect(compared).toBeGreaterThan(8);
    }, 600_000);

    it('the analyst\'s RLS is pushed into the source statement, and its answer, masked, equals DuckDB\'s', async () => {
      const sql = 'SELECT c.id, c.email, c.region, p.amount FROM sales.customers c JOIN sales.payments p ON p.customer_id = c.id';
      const viewer = { role: 'analyst', vars: { 'provisa.region': 'EU' } };
      const plan = planQuery({ sql, ...viewer }, governance, { route: 'engine', engine: 'trino' });
      const landings: LandingReport[] = [];
      const rows = await collect(trino.engine.execute(plan.sql, { ...(plan.pushdown ? { pushdown: plan.pushdown } : {}), onLanding: (l) => landings.push(l) }));
      expect(rows.length).toBeGreaterThan(0);
      for (const [, email, region, amount] of rows) {
        expect(region).toBe('EU');
        expect(String(email)).toMatch(/^.{2}\*\*\*@/);
        expect(Number(amount)).toBeGreaterThanOrEqual(100);
      }
      const customers = landings.find((l) => l.table.table === 'customers')!;
      expect(customers.params).toEqual(['EU']);
      expect(customers.rowsFetched).toBeLessThan(data.find((t) => t.name === 'customers')!.rows.length);
      expect(canon(rows)).toEqual((await governedOutcome(duck, governance, sql, viewer) as { rows: string[] }).rows);
      // through the instance's own pipeline: the hidden column does not exist for the analyst
      await expect(trino.query({ sql: 'SELECT ssn FROM sales.customers', ...viewer }, new AbortController().signal)).rejects.toMatchObject({ code: 'SQL_UNKNOWN_COLUMN' });
      expect(await (trino.engine as TrinoEngine).landedFiles()).toEqual([]);
    });
  });
}

describe.runIf(trinoAvailable() && postgres !== undefined)('PostgreSQL', () => {
  const url = new URL(postgres?.url ?? 'postgresql://x@127.0.0.1:1/x');
  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: postgres!.url });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${DB}`);
    await admin.query(`CREATE DATABASE ${DB}`);
    await admin.end();
    const db = new pg.Client({ connectionString: postgres!.url.replace(/\/[^/]*$/, `/${DB}`) });
    await db.connect();
    // a non-default schema: the engine table is (src, shop, <table>)
    await db.query('CREATE SCHEMA shop');
    for (const t of data) {
      const q = serverTableSql(t, 'postgres', 'shop.');
      await db.query(q.ddl);
      await db.query(q.insert);
    }
    await db.end();
  });
  afterAll(async () => {
    if (postgres?.origin === 'started') await postgres.stop();
    else {
      const admin = new pg.Client({ connectionString: postgres!.url });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    }
  });
  parity('PostgreSQL', () => `{id: src, type: postgresql, host: "${url.hostname}", port: ${url.port}, database: ${DB}, username: "${decodeURIComponent(url.username)}"}`, 'shop');
});

describe.runIf(trinoAvailable() && mariadb !== undefined)('MariaDB', () => {
  const url = new URL(mariadb?.url ?? 'mysql://x@127.0.0.1:1/x');
  beforeAll(async () => {
    // a case-insensitive collation: the source returns more than the pushed predicate asks, Trino filters exactly
    const conn = await mysql.createConnection({ uri: mariadb!.url, multipleStatements: true, timezone: 'Z' });
    await conn.query(`DROP DATABASE IF EXISTS ${DB}`);
    await conn.query(`CREATE DATABASE ${DB} CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
    await conn.query(`USE ${DB}`);
    for (const t of data) {
      const q = serverTableSql(t, 'mariadb');
      await conn.query(q.ddl);
      await conn.query(q.insert);
    }
    await conn.end();
  });
  afterAll(async () => {
    if (mariadb?.origin === 'started') await mariadb.stop();
    else {
      const conn = await mysql.createConnection({ uri: mariadb!.url });
      await conn.query(`DROP DATABASE IF EXISTS ${DB}`).catch(() => undefined);
      await conn.end();
    }
  });
  parity('MariaDB', () => `{id: src, type: mariadb, host: "${url.hostname}", port: ${url.port}, database: ${DB}, username: "${decodeURIComponent(url.username)}"}`);
});
